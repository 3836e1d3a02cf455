/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import wasm from 'vite-plugin-wasm';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

const buildId = process.env.KIZUNA_BUILD_ID ?? Date.now().toString(36);

/** builds/latest.json: the manifest the running app polls to notice a new build (spec §4). */
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
 *  its inline styles, and the app shows nothing else before start-up (several round trips later). */
function nonBlockingCss(): Plugin {
  return {
    name: 'kizuna-non-blocking-css',
    apply: 'build',
    enforce: 'post',
    transformIndexHtml(html) {
      return html.replace(
        /<link rel="stylesheet" crossorigin href="([^"]+\.css)">/g,
        '<link rel="preload" as="style" crossorigin href="$1" onload="this.onload=null;this.rel=\'stylesheet\'"><noscript><link rel="stylesheet" crossorigin href="$1"></noscript>',
      );
    },
  };
}

/** Message prefixes of screens other than /register's first step, a new user's first screen: their
 *  part of a catalogue loads after that screen is usable (see lib/i18n; the register page asks for
 *  it with the later steps). */
const LATER_PREFIXES = ['dev.', 'friend.', 'profile.', 'review.', 'report.', 'distanceBand.', 'privacy.', 'match.'];

/** `virtual:locale/<locale>/<first|later>`: one locale's catalogue (src/lib/i18n/locales, the one
 *  source) split by LATER_PREFIXES. */
function localeParts(): Plugin {
  const dir = fileURLToPath(new URL('./src/lib/i18n/locales', import.meta.url));
  return {
    name: 'kizuna-locale-parts',
    enforce: 'pre',
    resolveId(id) {
      return /^virtual:locale\/[A-Za-z-]+\/(first|later)$/.test(id) ? `\0${id}` : null;
    },
    load(id) {
      const m = /^\0virtual:locale\/([A-Za-z-]+)\/(first|later)$/.exec(id);
      if (!m) return null;
      const file = join(dir, `${m[1]}.json`);
      this.addWatchFile(file);
      const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      const later = (k: string) => LATER_PREFIXES.some((p) => k.startsWith(p));
      const part = Object.fromEntries(Object.entries(all).filter(([k]) => later(k) === (m[2] === 'later')));
      return `export default ${JSON.stringify(part)};`;
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

/** What every page's first render needs: React and the router, and the shared modules listed by
 *  name (a module added later for a lazy page never lands here by accident). */
const APP_CHUNK =
  /node_modules[\\/](react|react-dom|scheduler|wouter|regexparam|use-sync-external-store)[\\/]|src[\\/](lib[\\/](app-state|navigation|storage|logger|auth|cookies|config|image-url|store|toast|api-client|user-api|deep-link|wasm[\\/]index)\.ts|components[\\/](spinner|form)\.tsx|assets[\\/]logo\.svg)$/;

export default defineConfig({
  plugins: [localeParts(), wasm(), buildManifest(), nonBlockingCss(), precompress()],
  resolve: {
    alias: [{ find: '@', replacement: fileURLToPath(new URL('./src', import.meta.url)) }],
  },
  build: {
    target: 'es2022',
    modulePreload: { polyfill: false },
    cssCodeSplit: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // As one chunk the modules every page needs cost one request (and one set of response
            // headers) instead of a dozen.
            {
              name: 'app',
              test: (id: string) => id.includes('rolldown/runtime') || APP_CHUNK.test(id),
            },
            // The register page's own modules, but for the steps it loads on demand,
            {
              name: 'register-page',
              priority: 1,
              includeDependenciesRecursively: false,
              // and the catalogue labels its first step uses (the review console loads them from here
              // rather than adding a request to /register's first render).
              test: /src[\\/](lib[\\/]catalogue-labels\.ts$|features[\\/]register[\\/](?!components[\\/]step-(work|lifestyle|about|tags|photos|conditions|location|review)\.tsx$|api[\\/]submit-profile\.ts$)(?!.*\.test\.))/,
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
    restoreMocks: true,
  },
});
