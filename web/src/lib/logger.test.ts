import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { log, setLogShipper } from '@/lib/logger';

describe('client logger', () => {
  const shipped: string[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
    shipped.length = 0;
    setLogShipper((level, message) => shipped.push(`${level}:${message}`));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'info').mockImplementation(() => {});
  });
  afterEach(() => vi.useRealTimers());

  it('throttles a line repeated within 1000 ms after 5 repeats, then summarises', () => {
    for (let i = 0; i < 12; i++) {
      log('error', 'boom');
      vi.advanceTimersByTime(10);
    }
    expect(shipped).toEqual(Array(5).fill('error:boom'));
    vi.advanceTimersByTime(1000);
    expect(shipped.at(-1)).toBe('error:boom (repeated 7 times)');
  });

  it('does not throttle different lines or slow repeats', () => {
    log('info', 'a');
    log('info', 'b');
    for (let i = 0; i < 7; i++) {
      log('info', 'c');
      vi.advanceTimersByTime(1500);
    }
    expect(shipped).toHaveLength(9);
  });
});
