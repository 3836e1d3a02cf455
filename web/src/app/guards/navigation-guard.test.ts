import { describe, expect, it, vi } from 'vitest';
import { navigationGuard, type GuardContext, type GuardDeps, type RouteName } from '@/app/guards/navigation-guard';
import type { ReviewStatus } from '@/lib/app-state';

const ID = 'U0123456789abcdef0123456789abcdef';
const refused = Object.assign(new Error('E001A'), { status: 401 });

/** The guard's calls as the router wires them, with a token cookie that login sets, a refused
 *  session drops, and my-info needs. */
function deps(overrides: Partial<GuardDeps> = {}, { token = false, status = 'PENDING' as ReviewStatus['status'] | null, member = false } = {}) {
  const calls: string[] = [];
  let stored = token;
  const reviewStatus = (id: string): ReviewStatus | null => (status ? { status, userId: id, updatedAt: 0, reasons: [] } : null);
  const d: GuardDeps = {
    hasToken: vi.fn(() => stored),
    wasMember: () => member,
    getReviewStatus: vi.fn(async (id: string) => {
      calls.push(`review:${id}`);
      return reviewStatus(id);
    }),
    login: vi.fn(async (id: string) => {
      calls.push(`login:${id}`);
      stored = true;
      return 'token';
    }),
    getMyInfo: vi.fn(async () => {
      calls.push('my-info');
      if (!stored) throw refused;
      return { lineUserId: ID, status: reviewStatus(ID) };
    }),
    isRefused: (err) => err === refused,
    endSession: vi.fn(() => {
      calls.push('end-session');
      stored = false;
    }),
    setReviewStatus: vi.fn((s) => calls.push(`set:${s ? s.status : 'null'}`)),
    ...overrides,
  };
  return { d, calls, dropToken: () => (stored = false) };
}

const ctx = (route: RouteName, extra: Partial<GuardContext> = {}): GuardContext => ({
  route,
  liffInit: true,
  isLiffStateRedirect: false,
  isFriend: true,
  lineUserId: 'U0123456789abcdef0123456789abcdef',
  ...extra,
});

describe('navigation guard', () => {
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

  it('shows the help and rules to anyone, before joining and without the official account too', async () => {
    for (const c of [ctx('help'), ctx('help', { isFriend: false }), ctx('help', { lineUserId: null })]) {
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

  it('without a stored session checks review status, then logs in, then loads my-info, in that order', async () => {
    const { d, calls } = deps();
    await expect(navigationGuard(ctx('profile'), d)).resolves.toEqual({ kind: 'proceed' });
    expect(calls).toEqual([`review:${ID}`, 'set:PENDING', `login:${ID}`, 'my-info', 'set:PENDING']);
  });

  it('reuses a stored session: one my-info and no login', async () => {
    const { d, calls } = deps({}, { token: true, status: 'APPROVED' });
    await expect(navigationGuard(ctx('today'), d)).resolves.toEqual({ kind: 'proceed' });
    expect(calls).toEqual(['my-info', 'set:APPROVED']);
    expect(d.login).not.toHaveBeenCalled();
  });

  it('logs in once when the server refuses the stored session, then asks my-info again', async () => {
    const { d, calls, dropToken } = deps({}, { token: true, status: 'APPROVED' });
    const getMyInfo = d.getMyInfo;
    d.getMyInfo = vi.fn(async () => {
      if ((d.getMyInfo as ReturnType<typeof vi.fn>).mock.calls.length === 1) {
        calls.push('my-info:401');
        dropToken();
        throw refused;
      }
      return getMyInfo();
    });
    await expect(navigationGuard(ctx('today'), d)).resolves.toEqual({ kind: 'proceed' });
    expect(calls).toEqual(['my-info:401', `review:${ID}`, 'set:APPROVED', `login:${ID}`, 'my-info', 'set:APPROVED']);
  });

  it('a returning member without a session (the cookie of an earlier opening) logs in at once, without asking the review status', async () => {
    const { d, calls } = deps({}, { member: true, status: 'APPROVED' });
    await expect(navigationGuard(ctx('today'), d)).resolves.toEqual({ kind: 'proceed' });
    expect(calls).toEqual([`login:${ID}`, 'my-info', 'set:APPROVED']);
    // Their account is gone since: the login fails, and the review status sends them to register.
    const gone = deps({ login: vi.fn(async () => Promise.reject(new Error('E001A'))) }, { member: true, status: null });
    await expect(navigationGuard(ctx('today'), gone.d)).resolves.toEqual({ kind: 'redirect', to: '/register' });
    expect(gone.calls).toEqual([`review:${ID}`, 'set:null']);
  });

  it('a stored session of another LINE user is ended before this one logs in', async () => {
    const { d, calls } = deps({}, { token: true, status: 'APPROVED' });
    const getMyInfo = d.getMyInfo;
    d.getMyInfo = vi.fn(async () => {
      const facts = await getMyInfo();
      return (d.endSession as ReturnType<typeof vi.fn>).mock.calls.length === 0 ? { ...facts, lineUserId: 'Uother' } : facts;
    });
    await expect(navigationGuard(ctx('matches'), d)).resolves.toEqual({ kind: 'proceed' });
    expect(calls).toEqual(['my-info', 'end-session', `review:${ID}`, 'set:APPROVED', `login:${ID}`, 'my-info', 'set:APPROVED']);
  });

  it('asks the server nothing once this opening established the session', async () => {
    const approved: ReviewStatus = { status: 'APPROVED', userId: ID, updatedAt: 0, reasons: [] };
    for (const route of ['today', 'likes', 'matches', 'profile', 'member', 'chat', 'review'] as RouteName[]) {
      const { d, calls } = deps({}, { token: true, status: 'APPROVED' });
      await expect(navigationGuard(ctx(route, { session: { lineUserId: ID, status: approved } }), d)).resolves.toEqual({ kind: 'proceed' });
      expect(calls).toEqual([]);
    }
    // Established for another LINE user, or the token is gone since (a 401 dropped it): asked again.
    const other = deps({}, { token: true, status: 'APPROVED' });
    await navigationGuard(ctx('today', { session: { lineUserId: 'Uother', status: approved } }), other.d);
    expect(other.calls).toEqual(['my-info', 'set:APPROVED']);
    const dropped = deps({}, { token: false, status: 'APPROVED' });
    await navigationGuard(ctx('today', { session: { lineUserId: ID, status: approved } }), dropped.d);
    expect(dropped.calls).toEqual([`review:${ID}`, 'set:APPROVED', `login:${ID}`, 'my-info', 'set:APPROVED']);
  });

  it('a member this opening knows as not approved is asked about once more before leaving a matchmaking screen', async () => {
    const pending: ReviewStatus = { status: 'PENDING', userId: ID, updatedAt: 0, reasons: [] };
    const approvedSince = deps({}, { token: true, status: 'APPROVED' });
    await expect(navigationGuard(ctx('today', { session: { lineUserId: ID, status: pending } }), approvedSince.d)).resolves.toEqual({ kind: 'proceed' });
    expect(approvedSince.calls).toEqual(['my-info', 'set:APPROVED']);
    const stillPending = deps({}, { token: true, status: 'PENDING' });
    await expect(navigationGuard(ctx('today', { session: { lineUserId: ID, status: pending } }), stillPending.d)).resolves.toEqual({ kind: 'redirect', to: '/profile' });
    expect(stillPending.d.login).not.toHaveBeenCalled();
  });

  it('sends a PENDING or SUSPENDED member from /register to /profile', async () => {
    for (const status of ['PENDING', 'SUSPENDED'] as const) {
      const { d } = deps({}, { status });
      await expect(navigationGuard(ctx('register'), d)).resolves.toEqual({ kind: 'redirect', to: '/profile' });
    }
  });

  it('lets an APPROVED member open /register to edit their profile', async () => {
    const { d } = deps({}, { status: 'APPROVED' });
    await expect(navigationGuard(ctx('register'), d)).resolves.toEqual({ kind: 'proceed' });
  });

  it('lets a REJECTED member open /register to edit and resubmit', async () => {
    const { d } = deps({}, { status: 'REJECTED' });
    await expect(navigationGuard(ctx('register'), d)).resolves.toEqual({ kind: 'proceed' });
  });

  it('/review asks neither friendship nor registration, only a session, and proceeds when login fails', async () => {
    const { d, calls } = deps();
    await expect(navigationGuard(ctx('review', { isFriend: false }), d)).resolves.toEqual({ kind: 'proceed' });
    expect(calls).toEqual([`login:${ID}`, 'my-info']);
    const stored = deps({}, { token: true });
    await expect(navigationGuard(ctx('review', { isFriend: false }), stored.d)).resolves.toEqual({ kind: 'proceed' });
    expect(stored.calls).toEqual(['my-info']);
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
    for (const route of ['today', 'likes', 'matches', 'member', 'chat'] as RouteName[]) {
      const { d, calls } = deps({}, { status: 'APPROVED' });
      await expect(navigationGuard(ctx(route), d)).resolves.toEqual({ kind: 'proceed' });
      expect(calls).toEqual([`review:${ID}`, 'set:APPROVED', `login:${ID}`, 'my-info', 'set:APPROVED']);
      for (const status of ['PENDING', 'REJECTED', 'SUSPENDED'] as const) {
        const { d: other } = deps({}, { status });
        await expect(navigationGuard(ctx(route), other)).resolves.toEqual({ kind: 'redirect', to: '/profile' });
      }
      const { d: none } = deps({}, { status: null });
      await expect(navigationGuard(ctx(route), none)).resolves.toEqual({ kind: 'redirect', to: '/register' });
    }
  });
});
