// Checks that src/wasm-pkg (built by `just wasm`) actually loads, the way the bundler will load it.
// Debian's binaryen 108 `wasm-opt` mis-wires the `__wbindgen_externrefs` table export (it points at
// the function table), which breaks the package at start-up in every browser and in Node. When that
// is detected, the package is re-generated from the cargo output with wasm-bindgen and re-optimised
// with the current binaryen from npm (same flags + reference types), then checked again.
import { readFileSync, mkdtempSync, readdirSync, copyFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(web, 'src', 'wasm-pkg');
const repo = resolve(web, '..');

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
  console.warn(`wasm-pkg does not load (${err.message}); re-optimising with binaryen from npm`);
  const target = process.env.CARGO_TARGET_DIR || join(repo, 'target');
  const input = join(target, 'wasm32-unknown-unknown', 'wasm-release', 'kizuna_wasm.wasm');
  const out = mkdtempSync(join(tmpdir(), 'kizuna-wasm-'));
  execFileSync('wasm-bindgen', ['--target', 'bundler', '--out-dir', out, '--out-name', 'kizuna_wasm', input], { stdio: 'inherit' });
  const wasmOpt = join(web, 'node_modules', '.bin', 'wasm-opt');
  const file = join(out, 'kizuna_wasm_bg.wasm');
  execFileSync(wasmOpt, ['-Oz', '--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals', '--enable-reference-types', '-o', file, file], { stdio: 'inherit' });
  await loads(out);
  for (const f of readdirSync(out)) copyFileSync(join(out, f), join(pkg, f));
  console.log('wasm-pkg: repaired and loads');
}
