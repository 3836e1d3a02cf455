import type { ReviewStatus } from '@/lib/app-state';

/** The navigation guard of spec §2, as a pure decision over injected calls. */
export type RouteName = 'index' | 'friend' | 'profile' | 'register' | 'dev' | 'review' | 'today' | 'likes' | 'matches' | 'member' | 'chat' | 'signed-out' | 'not-found';

/** Matchmaking screens (issue 15): only APPROVED members take part, everyone else goes to /profile. */
export const MATCHMAKING_ROUTES: readonly RouteName[] = ['today', 'likes', 'matches', 'member', 'chat'];

export type GuardResult =
  | { kind: 'proceed' }
  | { kind: 'redirect'; to: string; external?: boolean };

export interface GuardContext {
  route: RouteName;
  liffInit: boolean;
  /** The target URL carries liff.state: the SDK is restoring a deep link. */
  isLiffStateRedirect: boolean;
  isFriend: boolean;
  lineUserId: string | null;
}

export interface GuardDeps {
  /** null: no profile yet. */
  getReviewStatus(userId: string): Promise<ReviewStatus | null>;
  login(userId: string): Promise<unknown>;
  getMyInfo(): Promise<unknown>;
  setReviewStatus(status: ReviewStatus | null): void;
}

export const PROCEED: GuardResult = { kind: 'proceed' };

export async function navigationGuard(ctx: GuardContext, deps: GuardDeps): Promise<GuardResult> {
  if (!ctx.liffInit || ctx.isLiffStateRedirect || ctx.route === 'dev') return PROCEED;
  // Signed out: nothing signs the member in again until they ask (the page's button).
  if (ctx.route === 'signed-out') return PROCEED;

  // The reviewer console (issue 14) runs in ordinary browsers too: no friendship or registration
  // is asked of a reviewer, only a session; the server decides the role (the page shows its 403).
  if (ctx.route === 'review') {
    if (ctx.lineUserId) {
      try {
        await deps.login(ctx.lineUserId);
        await deps.getMyInfo();
      } catch {
        /* the page reports what the server answers */
      }
    }
    return PROCEED;
  }

  // 1. Not a friend of the official account: every route but /friend goes there (external).
  if (!ctx.isFriend) {
    return ctx.route === 'friend' ? PROCEED : { kind: 'redirect', to: '/friend', external: true };
  }

  // 2. Review status → login (id as account and password) → my-info; register → profile.
  if (ctx.lineUserId) {
    try {
      const status = await deps.getReviewStatus(ctx.lineUserId);
      deps.setReviewStatus(status);
      // No profile yet: the register page is where they belong (no failed request on the way).
      if (!status) return ctx.route === 'register' ? PROCEED : { kind: 'redirect', to: '/register' };
      await deps.login(ctx.lineUserId);
      await deps.getMyInfo();
      // A REJECTED member edits and resubmits through the register form (issue 14).
      if (ctx.route === 'register' && status.status !== 'REJECTED') return { kind: 'redirect', to: '/profile' };
      if (MATCHMAKING_ROUTES.includes(ctx.route) && status.status !== 'APPROVED') return { kind: 'redirect', to: '/profile' };
    } catch {
      // 3. Any failure: clear the review status; every route but register goes to register.
      deps.setReviewStatus(null);
      if (ctx.route !== 'register') return { kind: 'redirect', to: '/register' };
    }
  }
  return PROCEED;
}
