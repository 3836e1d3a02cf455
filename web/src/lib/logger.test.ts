import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { log, setLogShipper } from '@/lib/logger';
import { clearToken, setToken } from '@/lib/auth';
import { setConfigForTest } from '@/lib/config';

describe('client logger', () => {
  const shipped: string[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
    shipped.length = 0;
    setLogShipper((level, message) => shipped.push(`${level}:${message}`));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'info').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
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

  it('ships the lines of a member with their session token and anonymous lines without one', async () => {
    const fetchMock = vi.fn<typeof fetch>().mockResolvedValue(new Response(null, { status: 204 }));
    vi.stubGlobal('fetch', fetchMock);
    setConfigForTest({ lineBotId: 'bot', liffId: 'liff', mockEnable: true, apiServerPath: '/api' });
    setLogShipper(null);
    setToken('tok-7');
    log('warn', 'as a member');
    clearToken();
    log('warn', 'anonymous');
    vi.unstubAllGlobals();
    const headers = fetchMock.mock.calls.map(([, init]) => init!.headers as Record<string, string>);
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/logger');
    expect(headers[0]!.Authorization).toBe('Bearer tok-7');
    expect(headers[1]!.Authorization).toBeUndefined();
  });
});
