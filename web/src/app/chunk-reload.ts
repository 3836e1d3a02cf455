import { lazy, type ComponentType } from 'react';
import { logger } from '@/lib/logger';

/** Chunk-load errors reload the page, at most once per 10 s (spec §8). */
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

export function lazyWithReload<T extends ComponentType>(load: () => Promise<{ default: T }>) {
  return lazy(async () => {
    try {
      return await load();
    } catch (err) {
      if (isChunkLoadError(err) && reloadForChunkError()) {
        return new Promise<{ default: T }>(() => {}); // the page is reloading
      }
      throw err;
    }
  });
}

export function installChunkErrorHandler(): void {
  // Vite reports failed preloads here; the import itself still rejects (no preventDefault), and
  // lazyWithReload decides about the reload.
  window.addEventListener('vite:preloadError', (event) => {
    const payload = (event as Event & { payload?: unknown }).payload;
    logger.warn(`preload failed: ${String(payload)}`);
  });
}
