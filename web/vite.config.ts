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

export default defineConfig({
  plugins: [wasm(), buildManifest(), nonBlockingCss(), precompress()],
  resolve: {
    alias: [{ find: '@', replacement: fileURLToPath(new URL('./src', import.meta.url)) }],
  },
  build: {
    target: 'es2022',
    modulePreload: { polyfill: false },
    cssCodeSplit: true,
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
