import { afterEach, describe, expect, it, vi } from 'vitest';
import { setCookie, TOKEN_COOKIE } from '@/lib/cookies';
import { clearSession } from '@/lib/auth';
import { confirmEmailCode, isEmailConfirmed, sendEmailCode } from '@/features/register/api/email-code';

const USER = 'U0123456789abcdef0123456789abcdef';

function answer(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

describe('work e-mail code', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    localStorage.clear();
    clearSession();
  });

  it('logs in first without a session, then sends the code with the session', async () => {
    const fetchMock = vi.fn(async (url: string, _init?: RequestInit) =>
      url.endsWith('/user/login') ? answer(200, { token: 'tok' }) : answer(200, { email: 'a@tsmc.com', expiresAt: 1, resendAfter: 60 }),
    );
    vi.stubGlobal('fetch', fetchMock);
    const sent = await sendEmailCode(USER, 'a@tsmc.com');
    expect(sent.resendAfter).toBe(60);
    expect(fetchMock.mock.calls.map((c) => String(c[0]).replace(/^.*\/api/, ''))).toEqual(['/user/login', '/verification/email-code']);
    const init = fetchMock.mock.calls[1]![1]!;
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
  });

  it('remembers a confirmed address as the server stores it, and only that address', async () => {
    setCookie(TOKEN_COOKIE, 'tok');
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, { email: 'mei@tsmc.com', confirmedAt: 1 })));
    expect(isEmailConfirmed('mei@tsmc.com')).toBe(false);
    await confirmEmailCode(USER, 'Mei@TSMC.com ', '123456');
    expect(isEmailConfirmed(' MEI@tsmc.com')).toBe(true);
    expect(isEmailConfirmed('other@tsmc.com')).toBe(false);
  });

  it('a wrong code is not remembered and its field error reaches the caller', async () => {
    setCookie(TOKEN_COOKIE, 'tok');
    vi.stubGlobal('fetch', vi.fn(async () => answer(422, { code: 'E002', cause: 'wrong code', fields: { code: ['mismatch'] } })));
    await expect(confirmEmailCode(USER, 'mei@tsmc.com', '000000')).rejects.toMatchObject({ status: 422, fields: { code: ['mismatch'] } });
    expect(isEmailConfirmed('mei@tsmc.com')).toBe(false);
  });
});
