/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import wasm from 'vite-plugin-wasm';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin, Rolldown } from 'vite';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

const buildId = process.env.KIZUNA_BUILD_ID ?? Date.now().toString(36);

/** builds/latest.json: the manifest the running app polls to notice a new build. */
function buildManifest(): Plugin {
  return {
    name: 'kizuna-build-manifest',
    apply: 'build',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'builds/latest.json', source: JSON.stringify({ id: buildId }) });
    },
  };
}

// index.html paints the loading overlay itself (the app replaces it on mount) and carries the
// favicon inline (one request less; the same SVG as the overlay, so it costs almost nothing
// compressed). Its comments live here: every byte of it is on the first visit's wire.

/** The entry stylesheet does not block the first paint: the HTML paints the loading overlay with
 *  its inline styles, and the app shows nothing else before start-up (several round trips later).
 *  The stylesheet is preloaded and the entry module turns it into a stylesheet before the first
 *  render (main.tsx): no inline `onload`, which the Content-Security-Policy refuses. */
function nonBlockingCss(): Plugin {
  return {
    name: 'kizuna-non-blocking-css',
    apply: 'build',
    enforce: 'post',
    transformIndexHtml(html) {
      return html.replace(
        /<link rel="stylesheet" crossorigin href="([^"]+\.css)">/g,
        '<link rel="preload" as="style" crossorigin href="$1"><noscript><link rel="stylesheet" crossorigin href="$1"></noscript>',
      );
    },
  };
}

/** The fields of /register's first step (lib/steps.ts `basics`): its messages and its limits are
 *  what the first screen carries. */
const FIRST_STEP_FIELDS = ['nickname', 'name', 'gender', 'matchGender', 'birthday', 'height'];

/** The messages of /register's first step, a new user's first screen: the app shell's, the step
 *  names, the first step's fields and every rule message (a rule may fire on any field). The rest
 *  of a catalogue loads after that screen is usable (lib/i18n; the register page's later steps wait
 *  for it). An entry ending in "." is a prefix, any other a whole key. */
const FIRST_SCREEN = [
  'app.', 'common.', 'error.', 'rule.', 'choice.gender.', 'choice.matchGender.', 'register.step.',
  'register.title', 'register.welcome.', 'register.steps', 'register.stepOf', 'register.progress', 'register.needsAttention',
  'register.resubmitNotice', 'register.coreFailed', 'register.backToReview', 'register.stepLead.basics',
  ...FIRST_STEP_FIELDS.flatMap((f) => [`field.${f}`, `hint.${f}`]),
];
const onFirstScreen = (key: string) => FIRST_SCREEN.some((p) => (p.endsWith('.') ? key.startsWith(p) : key === p));

/** `virtual:locale/<locale>/<first|later>`: one locale's catalogue split by FIRST_SCREEN: the app's
 *  messages (src/lib/i18n/locales) with the texts the server shows too (core/data/texts, their one
 *  home). `virtual:locale-table`: core/data/locales.json, the languages and how a tag picks one. */
function localeParts(): Plugin {
  const dir = fileURLToPath(new URL('./src/lib/i18n/locales', import.meta.url));
  const shared = fileURLToPath(new URL('../core/data/texts', import.meta.url));
  const table = fileURLToPath(new URL('../core/data/locales.json', import.meta.url));
  return {
    name: 'kizuna-locale-parts',
    enforce: 'pre',
    resolveId(id) {
      return /^virtual:locale\/[A-Za-z-]+\/(first|later)$/.test(id) || id === 'virtual:locale-table' ? `\0${id}` : null;
    },
    load(id) {
      if (id === '\0virtual:locale-table') {
        this.addWatchFile(table);
        // Only what the app reads: the file's `about` stays out of the entry chunk.
        const { locales, fallback, primaryLanguages } = JSON.parse(readFileSync(table, 'utf8')) as Record<string, unknown>;
        return `export default ${JSON.stringify({ locales, fallback, primaryLanguages })};`;
      }
      const m = /^\0virtual:locale\/([A-Za-z-]+)\/(first|later)$/.exec(id);
      if (!m) return null;
      const file = join(dir, `${m[1]}.json`);
      const sharedFile = join(shared, `${m[1]}.json`);
      this.addWatchFile(file);
      this.addWatchFile(sharedFile);
      const own = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      const common = JSON.parse(readFileSync(sharedFile, 'utf8')) as Record<string, string>;
      const twice = Object.keys(common).filter((k) => k in own);
      if (twice.length > 0) this.error(`${file} repeats keys of ${sharedFile}: ${twice.join(', ')}`);
      const all = { ...own, ...common };
      const part = Object.fromEntries(Object.entries(all).filter(([k]) => onFirstScreen(k) === (m[2] === 'first')));
      return `export default ${JSON.stringify(part)};`;
    },
  };
}

/** A wasm package of wasm-bindgen's bundler target run in Node, the way check-wasm-pkg.mjs loads it. */
async function wasmInNode<T>(dir: string, name: string): Promise<T> {
  const glue = (await import(`${pathToFileURL(join(dir, `${name}_bg.js`)).href}?t=${Date.now()}`)) as Record<string, unknown> & {
    __wbg_set_wasm(exports: WebAssembly.Exports): void;
  };
  const module = new WebAssembly.Module(readFileSync(join(dir, `${name}_bg.wasm`)));
  const imports: Record<string, Record<string, WebAssembly.ImportValue>> = {};
  for (const imp of WebAssembly.Module.imports(module)) (imports[imp.module] ??= {})[imp.name] = glue[imp.name] as WebAssembly.ImportValue;
  const instance = new WebAssembly.Instance(module, imports);
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
  return glue as unknown as T;
}

type Core = typeof import('./src/wasm-pkg/kizuna_wasm');
type Rules = typeof import('./src/wasm-rules-pkg/kizuna_wasm_rules');

/** A virtual module `id` whose source `source` writes from a wasm package of the core (`pkg`, its
 *  folder under src, and `name`), loaded in Node at build time; rebuilt when the package changes. */
function coreModule<T>(id: string, pkg: string, name: string, source: (this: Rolldown.PluginContext, core: T) => string | Promise<string>): Plugin {
  const dir = fileURLToPath(new URL(`./src/${pkg}`, import.meta.url));
  return {
    name: `kizuna-${id.replace('virtual:', '')}`,
    enforce: 'pre',
    resolveId: (requested) => (requested === id ? `\0${id}` : null),
    async load(resolved) {
      if (resolved !== `\0${id}`) return null;
      this.addWatchFile(join(dir, `${name}_bg.wasm`));
      return await source.call(this, await wasmInNode<T>(dir, name));
    },
  };
}

/** `virtual:core-first-step`: what /register's first step shows of the core (a fresh draft, the
 *  gender choices, every field's limits, which fields are required), asked of the same wasm
 *  package at build time. The first step is drawn with it before the core is downloaded (50 KB on
 *  the wire that a new member's first screen does not wait for); the rules stay the core's alone. */
function coreFirstStep(): Plugin {
  const rulesDir = fileURLToPath(new URL('./src/wasm-rules-pkg', import.meta.url));
  return coreModule<Core>('virtual:core-first-step', 'wasm-pkg', 'kizuna_wasm', async (core) => {
    const { draft } = core.repairDraft(null);
    const { choices, limits } = core.catalogues();
    const today = new Date().toISOString().slice(0, 10);
    const errors = core.validateDraft(draft, '', today);
    const required = Object.keys(errors).filter((k) => errors[k]!.includes('required'));
    // The fields fixed after approval (read-only when an approved member edits): from the rules
    // package, as virtual:core-rules, but here so that the first step imports one module.
    const { fixedFields } = (await wasmInNode<Rules>(rulesDir, 'kizuna_wasm_rules')).webRules();
    // Only the first step's fields: it is all that is drawn before the core (whose catalogues have
    // every limit) is there.
    const first = <T,>(entries: [string, T][]) => entries.filter(([field]) => FIRST_STEP_FIELDS.includes(field));
    const facts = {
      draft,
      choices: { gender: choices.gender, matchGender: choices.matchGender },
      limits: Object.fromEntries(first(Object.entries(limits))),
      required,
      fixedFields: fixedFields.filter((field) => FIRST_STEP_FIELDS.includes(field)),
    };
    return `export default ${JSON.stringify(facts)};`;
  });
}

/** `virtual:core-rules`: the core's rules for the code that applies them without loading the core
 *  (a like's comment, a report's text, how long a pass may be taken back, the matchmaking day's
 *  time zone, the session's life and the errors that end it, the fields fixed after approval, the
 *  review console's decisions: kizuna-core's `web_rules::WebRules`), asked at build time of the
 *  package built for it (src/wasm-rules-pkg, never shipped), so that each is defined once, in
 *  kizuna-core, and none of it weighs on the register form's wasm. One named export per field
 *  limit, by its wire name (`likeComment` is `{min, max}`), and one per rule: a chunk carries only
 *  the ones it imports. */
function coreRules(): Plugin {
  return coreModule<Rules>('virtual:core-rules', 'wasm-rules-pkg', 'kizuna_wasm_rules', function (core) {
    const { limits, console: consoleRules, ...rules } = core.webRules();
    const named = Object.entries(limits).map(([field, rule]) => {
      if (!/^[a-z][A-Za-z]*$/.test(field)) this.error(`a limit named ${field} is no JavaScript name`);
      return `export const ${field} = ${JSON.stringify({ min: rule.min, max: rule.max })};`;
    });
    const others = Object.entries({ ...rules, consoleRules }).map(([name, value]) => `export const ${name} = ${JSON.stringify(value)};`);
    return [...named, ...others].join('\n');
  });
}

/** `virtual:icon/<name>`: a lucide icon's drawing (`{name, node}`, lucide-react's own
 *  `icons/<name>.mjs` data, read at build time) for a screen that draws it without lucide-react's
 *  component runtime: the welcome, a newcomer's first screen, where that runtime would be one more
 *  request (features/register/components/welcome.tsx). */
function iconData(): Plugin {
  return {
    name: 'kizuna-icon-data',
    enforce: 'pre',
    resolveId: (id) => (/^virtual:icon\/[a-z0-9-]+$/.test(id) ? `\0${id}` : null),
    async load(id) {
      const m = /^\0virtual:icon\/([a-z0-9-]+)$/.exec(id);
      if (!m) return null;
      const file = fileURLToPath(new URL(`./node_modules/lucide-react/dist/esm/icons/${m[1]}.mjs`, import.meta.url));
      this.addWatchFile(file);
      const { __iconData: icon } = (await import(pathToFileURL(file).href)) as { __iconData: { name: string; node: [string, Record<string, string>][] } };
      // React's own keys, not lucide's: the drawing is a fixed list.
      const node = icon.node.map(([tag, attrs]) => [tag, Object.fromEntries(Object.entries(attrs).filter(([name]) => name !== 'key'))]);
      return `export default ${JSON.stringify({ name: icon.name, node })};`;
    },
  };
}

const COMPRESSIBLE = /\.(html|js|mjs|css|wasm|json|svg|webmanifest|txt|map)$/;
/** Below this a variant saves too little to be worth a file. */
const MIN_PRECOMPRESS_BYTES = 256;

/** Writes `<file>.br` (quality 11) and `<file>.gz` (level 9) beside every compressible file of the
 *  build; kizuna-server sends the variant the request accepts, so no answer is compressed per
 *  request and every byte is compressed as hard as the format allows. A variant that would not be
 *  smaller is not written. */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'kizuna-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const path = join(dir, name);
          return statSync(path).isDirectory() ? walk(path) : [path];
        });
      for (const file of walk(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const data = readFileSync(file);
        if (data.length < MIN_PRECOMPRESS_BYTES) continue;
        const br = brotliCompressSync(data, {
          params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: data.length },
        });
        if (br.length < data.length) writeFileSync(`${file}.br`, br);
        const gz = gzipSync(data, { level: 9 });
        if (gz.length < data.length) writeFileSync(`${file}.gz`, gz);
      }
    },
  };
}

/** Modules several pages share, listed by name (a module added later for a lazy page never lands
 *  here by accident): those the first render loads are in the app chunk, the others (the image
 *  URL helper) in one `shared` chunk rather than one each. */
const SHARED_MODULES =
  /node_modules[\\/](react|react-dom|scheduler)[\\/]|src[\\/](lib[\\/](app-state|navigation|storage|logger|auth|cookies|config|image-url|store|toast|api-client|user-api|deep-link|wasm[\\/]index)\.ts|components[\\/]spinner\.tsx|assets[\\/]logo\.svg)$/;

export default defineConfig({
  plugins: [localeParts(), coreFirstStep(), coreRules(), iconData(), wasm(), buildManifest(), nonBlockingCss(), precompress()],
  resolve: {
    alias: [{ find: '@', replacement: fileURLToPath(new URL('./src', import.meta.url)) }],
  },
  build: {
    target: 'es2022',
    modulePreload: { polyfill: false },
    cssCodeSplit: true,
    rolldownOptions: {
      // SWR and lucide-react mark their modules "use client" for React Server Components, which
      // this app has none of.
      onLog(level, log, handler) {
        if (log.code === 'MODULE_LEVEL_DIRECTIVE' && /node_modules[\\/](swr|lucide-react)[\\/]/.test(log.id ?? '')) return;
        handler(level, log);
      },
      output: {
        codeSplitting: {
          groups: [
            // Everything the entry loads statically (React, the router, the app shell, the LIFF SDK,
            // the shared lib) in the entry's own chunk: one request and one set of response
            // headers instead of four (entry, React, LIFF, shared lib).
            {
              name: 'app',
              tags: ['$initial'],
            },

            // The icons' runtime, which every screen with a lucide-react icon needs (the bottom bar;
            // the welcome draws its own from virtual:icon), with the verified mark: one request
            // rather than two.
            {
              name: 'icons',
              test: /node_modules[\\/]lucide-react[\\/]dist[\\/]esm[\\/](?!icons[\\/])|node_modules[\\/]lucide-react[\\/]dist[\\/]esm[\\/]icons[\\/]badge-check\.mjs$/,
            },
            {
              name: 'shared',
              test: (id: string) => id.includes('rolldown/runtime') || SHARED_MODULES.test(id),
            },
            // The register page's own modules, but for the steps it loads on demand (and the work
            // step's e-mail code step, the resubmission's codes, which use the data hook, and the
            // section edit with its preview),
            {
              name: 'register-page',
              priority: 1,
              includeDependenciesRecursively: false,
              // and the catalogue labels and form controls its first step uses (the review console
              // loads the labels from here rather than adding a request to /register's first render),
              // what its first step asks of the core and the welcome's own icons: one request.
              test: /\0virtual:(core-first-step|icon\/.*)$|src[\\/](lib[\\/]catalogue-labels\.ts$|components[\\/]form\.tsx$|features[\\/]register[\\/](?!components[\\/](step-(work|lifestyle|about|tags|photos|conditions|location|review)|email-code|resubmit-codes|draft-preview|edit-section)\.tsx$|api[\\/](submit-profile|email-code)\.ts$)(?!.*\.(test\.|css$)))/,
            },
          ],
        },
      },
    },
  },
  define: {
    __BUILD_ID__: JSON.stringify(buildId),
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/__mock': 'http://127.0.0.1:8080',
      '/_ipx': 'http://127.0.0.1:8080',
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    // `just test` runs these beside the server's tests on 2 cores: at a load average of 8 a test
    // typing 32 keys took more than Vitest's default 5 s (a limit on waiting, not on what is
    // asserted).
    testTimeout: 15_000,
  },
});
