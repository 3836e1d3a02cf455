import { describe, expect, it, vi } from 'vitest';
import { navigationGuard, type GuardContext, type GuardDeps, type RouteName } from '@/app/guards/navigation-guard';

function deps(overrides: Partial<GuardDeps> = {}) {
  const calls: string[] = [];
  const d: GuardDeps = {
    getReviewStatus: vi.fn(async (id: string) => {
      calls.push(`review:${id}`);
      return { status: 'PENDING' as const, userId: id, updatedAt: 0, reason: null, reasons: [] };
    }),
    login: vi.fn(async (id: string) => {
      calls.push(`login:${id}`);
      return 'token';
    }),
    getMyInfo: vi.fn(async () => {
      calls.push('my-info');
      return {};
    }),
    setReviewStatus: vi.fn((s) => calls.push(`set:${s ? s.status : 'null'}`)),
    ...overrides,
  };
  return { d, calls };
}

const ctx = (route: RouteName, extra: Partial<GuardContext> = {}): GuardContext => ({
  route,
  liffInit: true,
  isLiffStateRedirect: false,
  isFriend: true,
  lineUserId: 'U0123456789abcdef0123456789abcdef',
  ...extra,
});

describe('navigation guard (spec §2)', () => {
  it('does nothing before LIFF is initialised, on liff.state redirects and on /dev', async () => {
    for (const c of [ctx('profile', { liffInit: false }), ctx('profile', { isLiffStateRedirect: true }), ctx('dev', { isFriend: false })]) {
      const { d, calls } = deps();
      await expect(navigationGuard(c, d)).resolves.toEqual({ kind: 'proceed' });
      expect(calls).toEqual([]);
    }
  });

  it('signs nobody in on /signed-out: the member asks for it with the button there', async () => {
    for (const c of [ctx('signed-out'), ctx('signed-out', { isFriend: false })]) {
      const { d, calls } = deps();
      await expect(navigationGuard(c, d)).resolves.toEqual({ kind: 'proceed' });
      expect(calls).toEqual([]);
    }
  });

  it('sends a non-friend to /friend with an external redirect, from every route but friend', async () => {
    for (const route of ['index', 'profile', 'register', 'not-found'] as RouteName[]) {
      const { d, calls } = deps();
      await expect(navigationGuard(ctx(route, { isFriend: false }), d)).resolves.toEqual({
        kind: 'redirect',
        to: '/friend',
        external: true,
      });
      expect(calls).toEqual([]);
    }
    const { d } = deps();
    await expect(navigationGuard(ctx('friend', { isFriend: false }), d)).resolves.toEqual({ kind: 'proceed' });
  });

  it('checks review status, then logs in, then loads my-info, in that order', async () => {
    const { d, calls } = deps();
    await expect(navigationGuard(ctx('profile'), d)).resolves.toEqual({ kind: 'proceed' });
    const id = 'U0123456789abcdef0123456789abcdef';
    expect(calls).toEqual([`review:${id}`, 'set:PENDING', `login:${id}`, 'my-info']);
  });

  it('sends a registered user from /register to /profile', async () => {
    const { d } = deps();
    await expect(navigationGuard(ctx('register'), d)).resolves.toEqual({ kind: 'redirect', to: '/profile' });
  });

  it('lets a REJECTED member open /register to edit and resubmit', async () => {
    const { d } = deps({ getReviewStatus: vi.fn(async () => ({ status: 'REJECTED' as const, userId: 'U1', updatedAt: 0, reasons: ['PHOTO_UNCLEAR'] })) });
    await expect(navigationGuard(ctx('register'), d)).resolves.toEqual({ kind: 'proceed' });
  });

  it('/review asks neither friendship nor registration, only a session, and proceeds when login fails', async () => {
    const { d, calls } = deps();
    await expect(navigationGuard(ctx('review', { isFriend: false }), d)).resolves.toEqual({ kind: 'proceed' });
    expect(calls).toEqual(['login:U0123456789abcdef0123456789abcdef', 'my-info']);
    const failing = deps({ login: vi.fn(async () => Promise.reject(new Error('x'))) });
    await expect(navigationGuard(ctx('review'), failing.d)).resolves.toEqual({ kind: 'proceed' });
    expect(failing.d.setReviewStatus).not.toHaveBeenCalled();
  });

  it('on any failure clears the review status and sends every route but register to register', async () => {
    for (const failing of ['getReviewStatus', 'login', 'getMyInfo'] as const) {
      const { d } = deps({ [failing]: vi.fn(async () => Promise.reject(new Error('x'))) });
      await expect(navigationGuard(ctx('profile'), d)).resolves.toEqual({ kind: 'redirect', to: '/register' });
      expect(d.setReviewStatus).toHaveBeenLastCalledWith(null);
      await expect(navigationGuard(ctx('register'), d)).resolves.toEqual({ kind: 'proceed' });
      await expect(navigationGuard(ctx('index'), d)).resolves.toEqual({ kind: 'redirect', to: '/register' });
    }
  });

  it('a user without a profile (review status null) goes to register without logging in', async () => {
    const id = 'U0123456789abcdef0123456789abcdef';
    for (const route of ['profile', 'index'] as RouteName[]) {
      const { d, calls } = deps({ getReviewStatus: vi.fn(async () => null) });
      await expect(navigationGuard(ctx(route), d)).resolves.toEqual({ kind: 'redirect', to: '/register' });
      expect(calls).toEqual(['set:null']);
      expect(d.getReviewStatus).toHaveBeenCalledWith(id);
    }
    const { d, calls } = deps({ getReviewStatus: vi.fn(async () => null) });
    await expect(navigationGuard(ctx('register'), d)).resolves.toEqual({ kind: 'proceed' });
    expect(calls).toEqual(['set:null']);
  });

  it('without a LINE user id only the friendship gate applies', async () => {
    const { d, calls } = deps();
    await expect(navigationGuard(ctx('register', { lineUserId: null }), d)).resolves.toEqual({ kind: 'proceed' });
    expect(calls).toEqual([]);
  });

  it('lets only an APPROVED member into the matchmaking screens; anyone else with a profile goes to /profile', async () => {
    for (const route of ['today', 'matches', 'member', 'chat'] as RouteName[]) {
      const { d, calls } = deps({ getReviewStatus: vi.fn(async () => ({ status: 'APPROVED' as const, userId: 'U1', updatedAt: 0, reasons: [] })) });
      await expect(navigationGuard(ctx(route), d)).resolves.toEqual({ kind: 'proceed' });
      expect(calls).toEqual(['set:APPROVED', 'login:U0123456789abcdef0123456789abcdef', 'my-info']);
      for (const status of ['PENDING', 'REJECTED', 'SUSPENDED'] as const) {
        const { d: other } = deps({ getReviewStatus: vi.fn(async () => ({ status, userId: 'U1', updatedAt: 0, reasons: [] })) });
        await expect(navigationGuard(ctx(route), other)).resolves.toEqual({ kind: 'redirect', to: '/profile' });
      }
      const { d: none } = deps({ getReviewStatus: vi.fn(async () => null) });
      await expect(navigationGuard(ctx(route), none)).resolves.toEqual({ kind: 'redirect', to: '/register' });
    }
  });
});
