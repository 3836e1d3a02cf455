// Checks that src/wasm-pkg (built by `just wasm`) actually loads and answers, the way the bundler
// will load it, so a broken package fails the build here rather than at start-up in a browser.
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(web, 'src', 'wasm-pkg');

async function loads(dir) {
  const glue = await import(`${pathToFileURL(join(dir, 'kizuna_wasm_bg.js')).href}?t=${Date.now()}`);
  const bytes = readFileSync(join(dir, 'kizuna_wasm_bg.wasm'));
  const module = new WebAssembly.Module(bytes);
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    imports[imp.module] ??= {};
    imports[imp.module][imp.name] = glue[imp.name];
  }
  const instance = new WebAssembly.Instance(module, imports);
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start?.();
  const cat = glue.catalogues();
  if (!cat || !cat.employers) throw new Error('catalogues() gave nothing');
}

if (!existsSync(join(pkg, 'kizuna_wasm_bg.wasm'))) {
  console.error('web/src/wasm-pkg is missing: run `just wasm` first.');
  process.exit(1);
}
try {
  await loads(pkg);
  console.log('wasm-pkg: loads');
} catch (err) {
  console.error(`web/src/wasm-pkg does not load (${err.message}): rebuild it with \`just wasm\`.`);
  process.exit(1);
}
