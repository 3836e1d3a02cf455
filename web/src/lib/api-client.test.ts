import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import type { Schemas } from '@/lib/api/types';
import {
  api,
  ApiError,
  NETWORK_ERROR,
  resetApiClientForTest,
  retryAfterMs,
  setIdTokenProvider,
  setIdTokenRefresher,
  setSleepForTest,
  UNAVAILABLE_RETRIES,
} from '@/lib/api-client';
import { getToken, setToken } from '@/lib/auth';
import { resetToasts, toastStore } from '@/lib/toast';
import { setConfigForTest } from '@/lib/config';
import { setLogShipper } from '@/lib/logger';

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

const fetchMock = vi.fn<typeof fetch>();
const LOGIN = { account: 'U1', password: 'U1' };
const shown = () => toastStore.get().toasts.filter((t) => t.open).map((t) => [t.color, t.title]);

describe('api client', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock);
    fetchMock.mockReset();
    resetToasts();
    resetApiClientForTest();
    setLogShipper(() => {});
    setConfigForTest({ lineBotId: 'bot', liffId: 'liff', mockEnable: true, apiServerPath: '/api' });
    document.cookie = 'kizuna_token=; Max-Age=0; Path=/';
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => vi.unstubAllGlobals());

  it('sends the bearer token from the cookie and the base path from config', async () => {
    setToken('tok-1');
    fetchMock.mockResolvedValue(jsonResponse(200, { ok: true }));
    await expect(api.get('/user/my-info')).resolves.toEqual({ ok: true });
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/user/my-info');
    expect((init!.headers as Record<string, string>).Authorization).toBe('Bearer tok-1');
  });

  it('public calls carry no bearer token but the LINE ID token', async () => {
    setToken('tok-1');
    setIdTokenProvider(() => 'id.token.jwt');
    fetchMock.mockResolvedValue(jsonResponse(200, { token: 'x' }));
    await api.post('/user/login', { body: { account: 'U1', password: 'U1' }, public: true, lineIdToken: true });
    const headers = fetchMock.mock.calls[0]![1]!.headers as Record<string, string>;
    expect(headers.Authorization).toBeUndefined();
    expect(headers['X-Line-Id-Token']).toBe('id.token.jwt');
  });

  it('an Authorization response header replaces the stored token', async () => {
    setToken('old');
    fetchMock.mockResolvedValue(jsonResponse(200, {}, { Authorization: 'Bearer renewed' }));
    await api.get('/user/my-info');
    expect(getToken()).toBe('renewed');
  });

  it('E001A/E001B: one red toast per code and the token cleared', async () => {
    setToken('tok');
    fetchMock.mockImplementation(async () => jsonResponse(401, { code: 'E001A', cause: 'Session invalid' }));
    await expect(api.get('/user/my-info')).rejects.toMatchObject({ code: 'E001A', status: 401 });
    await expect(api.get('/matches')).rejects.toBeInstanceOf(ApiError);
    expect(getToken()).toBeNull();
    expect(shown()).toEqual([['error', 'Session invalid']]);
    fetchMock.mockImplementation(async () => jsonResponse(401, { code: 'E001B', cause: 'Session expired' }));
    await expect(api.get('/introductions')).rejects.toMatchObject({ code: 'E001B' });
    expect(shown()).toEqual([
      ['error', 'Session invalid'],
      ['error', 'Session expired'],
    ]);
  });

  it('an auth error on a public call keeps the stored token', async () => {
    setToken('tok');
    fetchMock.mockResolvedValue(jsonResponse(401, { code: 'E001B', cause: 'expired' }));
    await expect(api.post('/user/login', { body: LOGIN, public: true })).rejects.toMatchObject({ code: 'E001B' });
    expect(getToken()).toBe('tok');
  });

  it('other errors toast the cause unless showToast is false', async () => {
    fetchMock.mockImplementation(async () => jsonResponse(409, { code: 'E005', cause: 'Profile exists' }));
    await expect(api.post('/user/logout')).rejects.toMatchObject({ code: 'E005', causeText: 'Profile exists' });
    expect(shown()).toEqual([['error', 'Profile exists']]);
    await expect(api.get('/user/my-info', { showToast: false })).rejects.toMatchObject({ code: 'E005' });
    expect(shown()).toHaveLength(1);
  });

  it('keeps validation fields and falls back to the status text', async () => {
    fetchMock.mockResolvedValueOnce(
      jsonResponse(422, { code: 'E002', cause: 'Invalid', fields: { nickname: ['required'] } }),
    );
    await expect(api.post('/user/logout', { showToast: false })).rejects.toMatchObject({
      fields: { nickname: ['required'] },
    });
    fetchMock.mockResolvedValueOnce(new Response('oops', { status: 502, statusText: 'Bad Gateway' }));
    await expect(api.get('/matches')).rejects.toMatchObject({ code: 'HTTP502', causeText: 'Bad Gateway' });
  });

  it('a stale ID token (E004) on an identity call is refreshed once and the call retried', async () => {
    let token = 'old.jwt';
    setIdTokenProvider(() => token);
    setIdTokenRefresher(async () => {
      token = 'new.jwt';
      return true;
    });
    fetchMock.mockImplementation(async (_u, init) => {
      const sent = (init!.headers as Record<string, string>)['X-Line-Id-Token'];
      return sent === 'new.jwt' ? jsonResponse(200, { token: 's' }) : jsonResponse(403, { code: 'E004', cause: 'Invalid ID_TOKEN' });
    });
    await expect(api.post('/user/login', { body: LOGIN, public: true, lineIdToken: true })).resolves.toEqual({ token: 's' });
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(shown()).toEqual([]);
  });

  it('fills the path and leaves unset query values out', async () => {
    fetchMock.mockImplementation(async () => jsonResponse(200, { messages: [], hasMore: false }));
    await api.get('/matches/{matchId}/messages', { path: { matchId: 7 }, query: { limit: 30, before: undefined } });
    await api.get('/route-rules', { query: { path: '/a b?c' } });
    await api.get('/user/review-status/{userId}', { path: { userId: 'U/1' } });
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual([
      '/api/matches/7/messages?limit=30',
      '/api/route-rules?path=%2Fa+b%3Fc',
      '/api/user/review-status/U%2F1',
    ]);
  });

  it('types each call by its path in the OpenAPI document', () => {
    // Compile-time checks (tsc runs over the tests): answers, parameters and bodies are the
    // document's, and an unknown path or field does not compile.
    expectTypeOf(api.get<'/members/{memberId}'>).returns.resolves.toEqualTypeOf<Schemas['MemberProfile']>();
    expectTypeOf(api.post<'/blocks'>).returns.resolves.toEqualTypeOf<undefined>();
    expectTypeOf(api.get<'/matches'>).returns.resolves.toEqualTypeOf<Schemas['MatchItem'][]>();
    const never = () => {
      // @ts-expect-error not a path of the document
      void api.get('/members');
      // @ts-expect-error the path parameter is required
      void api.get('/members/{memberId}');
      // @ts-expect-error a body field the document does not have
      void api.put('/user/pause', { body: { pause: true } });
      // @ts-expect-error GET /introductions has no such answer field
      void api.get('/introductions').then((list) => list.items);
    };
    expect(typeof never).toBe('function');
  });

  it('a network failure is an ApiError with the NETWORK code', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    await expect(api.get('/matches', { showToast: false })).rejects.toMatchObject({ code: NETWORK_ERROR, status: 0 });
    expect(shown()).toHaveLength(0);
  });

  describe('503 while the server cannot reach its database', () => {
    let waits: number[];
    beforeEach(() => {
      waits = [];
      setSleepForTest(async (ms) => {
        waits.push(ms);
      });
    });
    const unavailable = (retryAfter?: string) =>
      jsonResponse(503, { code: 'E503', cause: 'Service unavailable' }, retryAfter ? { 'Retry-After': retryAfter } : {});

    it('retries quietly, honouring Retry-After, and answers once the server is back', async () => {
      let calls = 0;
      fetchMock.mockImplementation(async () => (++calls <= 2 ? unavailable('2') : jsonResponse(200, { ok: true })));
      await expect(api.post('/user/login', { body: LOGIN })).resolves.toEqual({ ok: true });
      expect(fetchMock).toHaveBeenCalledTimes(3);
      expect(waits).toEqual([2000, 2000]);
      // Every attempt sends the same request.
      const bodies = fetchMock.mock.calls.map(([, init]) => [init!.method, init!.body]);
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
      expect(shown()).toEqual([]);
    });

    it('gives up after a few retries and only then shows the error', async () => {
      fetchMock.mockImplementation(async () => unavailable());
      await expect(api.get('/user/my-info')).rejects.toMatchObject({ code: 'E503', status: 503 });
      expect(fetchMock).toHaveBeenCalledTimes(UNAVAILABLE_RETRIES + 1);
      expect(waits).toEqual(Array(UNAVAILABLE_RETRIES).fill(1000));
      expect(shown()).toEqual([['error', 'Service unavailable']]);
    });

    it('caps a long Retry-After and reads the HTTP-date form', () => {
      expect(retryAfterMs('1')).toBe(1000);
      expect(retryAfterMs('3600')).toBe(5000);
      expect(retryAfterMs(null)).toBe(1000);
      expect(retryAfterMs('soon')).toBe(1000);
      const now = Date.parse('2026-11-23T10:00:00Z');
      expect(retryAfterMs('Mon, 23 Nov 2026 10:00:03 GMT', now)).toBe(3000);
      expect(retryAfterMs('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    });

    it('other failures are not retried', async () => {
      fetchMock.mockImplementation(async () => jsonResponse(500, { code: 'E500', cause: 'boom' }));
      await expect(api.get('/matches', { showToast: false })).rejects.toMatchObject({ code: 'E500' });
      expect(fetchMock).toHaveBeenCalledTimes(1);
      expect(waits).toEqual([]);
    });
  });
});
