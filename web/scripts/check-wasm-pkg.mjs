// Checks that src/wasm-pkg, src/wasm-safety-pkg and src/wasm-rules-pkg (built by `just wasm`)
// actually load and answer, the way the bundler will load them, so a broken package fails the
// build here rather than at start-up in a browser.
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(web, 'src', 'wasm-pkg');

async function instantiate(dir, name) {
  const glue = await import(`${pathToFileURL(join(dir, `${name}_bg.js`)).href}?t=${Date.now()}`);
  const bytes = readFileSync(join(dir, `${name}_bg.wasm`));
  const module = new WebAssembly.Module(bytes);
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    imports[imp.module] ??= {};
    imports[imp.module][imp.name] = glue[imp.name];
  }
  const instance = new WebAssembly.Instance(module, imports);
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start?.();
  return glue;
}

const packages = [
  {
    dir: pkg,
    name: 'kizuna_wasm',
    answers(glue) {
      const cat = glue.catalogues();
      if (!cat || !cat.employers) throw new Error('catalogues() gave nothing');
    },
  },
  {
    dir: join(web, 'src', 'wasm-safety-pkg'),
    name: 'kizuna_wasm_safety',
    // wasm-bindgen's `web` target: the module instantiates itself from the bytes it is given.
    async instantiate(dir, name) {
      const glue = await import(`${pathToFileURL(join(dir, `${name}.js`)).href}?t=${Date.now()}`);
      glue.initSync({ module: readFileSync(join(dir, `${name}_bg.wasm`)) });
      return glue;
    },
    answers(glue) {
      const kinds = glue.screenMessage('加我ＬＩＮＥ：kevin0815', { matchAgeSecs: 60, sentBySender: 0, sentByOther: 0 });
      if (kinds.join() !== 'OFF_PLATFORM') throw new Error(`screenMessage() gave ${JSON.stringify(kinds)}`);
    },
  },
  {
    // The core's rules for the build (virtual:core-rules), loaded in Node only.
    dir: join(web, 'src', 'wasm-rules-pkg'),
    name: 'kizuna_wasm_rules',
    answers(glue) {
      const rules = glue.webRules();
      if (!rules || !rules.limits || !rules.console) throw new Error('webRules() gave nothing');
    },
  },
];

for (const { dir, name, answers, instantiate: load = instantiate } of packages) {
  const where = `web/src/${dir.split(/[\\/]/).pop()}`;
  if (!existsSync(join(dir, `${name}_bg.wasm`))) {
    console.error(`${where} is missing: run \`just wasm\` first.`);
    process.exit(1);
  }
  try {
    answers(await load(dir, name));
    console.log(`${where}: loads`);
  } catch (err) {
    console.error(`${where} does not load (${err.message}): rebuild it with \`just wasm\`.`);
    process.exit(1);
  }
}
