import { createElement, lazy, type ComponentType } from 'react';
import { logger } from '@/lib/logger';

/** Chunk-load errors reload the page, at most once per 10 s. */
export const CHUNK_RELOAD_GUARD_MS = 10_000;
const KEY = 'kizuna:chunk-reload-at';

export function isChunkLoadError(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS|ChunkLoadError/i.test(
    message,
  );
}

/** Returns true when a reload was started. */
export function reloadForChunkError(now = Date.now(), reload = () => location.reload()): boolean {
  let last = 0;
  try {
    last = Number(sessionStorage.getItem(KEY) ?? 0);
  } catch {
    /* ignore */
  }
  if (now - last < CHUNK_RELOAD_GUARD_MS) return false;
  try {
    sessionStorage.setItem(KEY, String(now));
  } catch {
    /* ignore */
  }
  logger.warn('chunk load error: reloading');
  reload();
  return true;
}

/** A lazily loaded screen that, once its code is here, renders at once: React's `lazy` suspends on
 *  a first render even when the module has arrived, and the fallback (a spinner) would flash on a
 *  tab whose code was loaded ahead (`preload`). */
export type LazyScreen = ComponentType & { preload(): Promise<void> };

export function lazyWithReload<T extends ComponentType>(load: () => Promise<{ default: T }>): LazyScreen {
  let loaded: T | null = null;
  let loading: Promise<{ default: T }> | null = null;
  const loadOnce = () =>
    (loading ??= load().then(
      (module) => {
        loaded = module.default;
        return module;
      },
      (err: unknown) => {
        loading = null; // the next render or preload tries again
        throw err;
      },
    ));
  const Lazy = lazy(async () => {
    try {
      return await loadOnce();
    } catch (err) {
      if (isChunkLoadError(err) && reloadForChunkError()) {
        return new Promise<{ default: T }>(() => {}); // the page is reloading
      }
      throw err;
    }
  });
  const Screen = () => createElement((loaded ?? Lazy) as ComponentType);
  Screen.preload = () => loadOnce().then(() => undefined);
  return Screen;
}

export function installChunkErrorHandler(): void {
  // Vite reports failed preloads here; the import itself still rejects (no preventDefault), and
  // lazyWithReload decides about the reload.
  window.addEventListener('vite:preloadError', (event) => {
    const payload = (event as Event & { payload?: unknown }).payload;
    logger.warn(`preload failed: ${String(payload)}`);
  });
}
