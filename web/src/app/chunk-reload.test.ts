import { beforeEach, describe, expect, it, vi } from 'vitest';
import { isChunkLoadError, reloadForChunkError } from '@/app/chunk-reload';
import { setLogShipper } from '@/lib/logger';

describe('chunk reload', () => {
  beforeEach(() => {
    sessionStorage.clear();
    setLogShipper(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  it('recognises chunk load errors', () => {
    expect(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: /a.js'))).toBe(true);
    expect(isChunkLoadError(new Error('boom'))).toBe(false);
  });
  it('reloads at most once per 10 s', () => {
    const reload = vi.fn();
    expect(reloadForChunkError(100_000, reload)).toBe(true);
    expect(reloadForChunkError(105_000, reload)).toBe(false);
    expect(reloadForChunkError(110_000, reload)).toBe(true);
    expect(reload).toHaveBeenCalledTimes(2);
  });
});
