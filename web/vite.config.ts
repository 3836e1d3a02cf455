/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import wasm from 'vite-plugin-wasm';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

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

export default defineConfig({
  plugins: [wasm(), buildManifest(), nonBlockingCss()],
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
