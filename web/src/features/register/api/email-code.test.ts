import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadCore, type Core } from '@/lib/wasm';
import { setCookie, TOKEN_COOKIE } from '@/lib/cookies';
import { clearSession } from '@/lib/auth';
import { confirmEmailCode, isEmailConfirmed, sendEmailCode } from '@/features/register/api/email-code';

const USER = 'U0123456789abcdef0123456789abcdef';

function answer(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

let core: Core;

describe('work e-mail code', () => {
  beforeAll(async () => {
    core = await loadCore();
  });

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
    expect(isEmailConfirmed(core, 'mei@tsmc.com')).toBe(false);
    await confirmEmailCode(USER, 'Mei@TSMC.com ', '123456');
    expect(isEmailConfirmed(core, ' MEI@tsmc.com')).toBe(true);
    expect(isEmailConfirmed(core, 'other@tsmc.com')).toBe(false);
  });

  it('compares addresses as the core normalises them: only ASCII letters are lower-cased', async () => {
    setCookie(TOKEN_COOKIE, 'tok');
    vi.stubGlobal('fetch', vi.fn(async () => answer(200, { email: 'kim@kizuna.com', confirmedAt: 1 })));
    await confirmEmailCode(USER, 'kim@kizuna.com', '123456');
    // The Kelvin sign lower-cases to an ASCII k in JavaScript, not in the core, which refuses the
    // address: it is not the confirmed one.
    expect('kim@\u212Aizuna.com'.toLowerCase()).toBe('kim@kizuna.com');
    expect(core.normaliseEmail('KIM@\u212Aizuna.com')).toBe('kim@\u212Aizuna.com');
    expect(isEmailConfirmed(core, 'kim@\u212Aizuna.com')).toBe(false);
    expect(isEmailConfirmed(core, '\u00A0KIM@KIZUNA.COM\n')).toBe(true);
    // JavaScript's trim takes a byte-order mark away; the core's does not.
    expect(isEmailConfirmed(core, '\uFEFFkim@kizuna.com')).toBe(false);
  });

  it('a typed code is what the core reads as one: its digits, trimmed', () => {
    const digits = core.catalogues().limits.emailCode!.max;
    expect(core.isEmailCode('1'.repeat(digits))).toBe(true);
    expect(core.isEmailCode(` ${'2'.repeat(digits)} `)).toBe(true);
    expect(core.isEmailCode('1'.repeat(digits - 1))).toBe(false);
    expect(core.isEmailCode('1'.repeat(digits + 1))).toBe(false);
    expect(core.isEmailCode('١'.repeat(digits))).toBe(false);
  });

  it('a wrong code is not remembered and its field error reaches the caller', async () => {
    setCookie(TOKEN_COOKIE, 'tok');
    vi.stubGlobal('fetch', vi.fn(async () => answer(422, { code: 'E002', cause: 'wrong code', fields: { code: ['mismatch'] } })));
    await expect(confirmEmailCode(USER, 'mei@tsmc.com', '000000')).rejects.toMatchObject({ status: 422, fields: { code: ['mismatch'] } });
    expect(isEmailConfirmed(core, 'mei@tsmc.com')).toBe(false);
  });
});
