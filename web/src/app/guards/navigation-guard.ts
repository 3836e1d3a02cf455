import type { ReviewStatus } from '@/lib/app-state';

/** The navigation guard (docs/design.md "Identity and sessions"), as a pure decision over injected calls. */
export type RouteName = 'index' | 'friend' | 'profile' | 'settings' | 'register' | 'dev' | 'review' | 'today' | 'likes' | 'matches' | 'member' | 'chat' | 'signed-out' | 'help' | 'not-found';

/** Matchmaking screens: only APPROVED members take part, everyone else goes to /profile. */
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
  /** What this opening of the app already established for `lineUserId` (my-info answered under the
   *  stored session): its review status. Absent when nothing is established yet. */
  session?: { lineUserId: string; status: ReviewStatus | null } | null;
}

/** my-info's facts the guard decides on: whose session it is and their review status. */
export interface SessionFacts {
  lineUserId: string;
  status: ReviewStatus | null;
}

export interface GuardDeps {
  /** A session token is stored (the cookie of an earlier opening, or of this one). */
  hasToken(): boolean;
  /** The last opening on this browser left a member's cookie (they had a profile then). */
  wasMember(): boolean;
  /** null: no profile yet. */
  getReviewStatus(userId: string): Promise<ReviewStatus | null>;
  login(userId: string): Promise<unknown>;
  /** my-info under the stored token; rejects as the server does (a refused session is `isRefused`). */
  getMyInfo(): Promise<SessionFacts>;
  /** The server refused the session (401): the token is dropped and a login starts a new one. */
  isRefused(err: unknown): boolean;
  /** The stored session is someone else's (another LINE user on this browser): forget it all. */
  endSession(): void;
  setReviewStatus(status: ReviewStatus | null): void;
}

export const PROCEED: GuardResult = { kind: 'proceed' };

/** The decisions that need no answer from the server (nothing to ask before a non-friend goes to
 *  /friend): the router asks for nothing else when this decides. null: the full guard decides. */
export function decideAtOnce(ctx: GuardContext): GuardResult | null {
  if (!ctx.liffInit || ctx.isLiffStateRedirect || ctx.route === 'dev') return PROCEED;
  // Signed out: nothing signs the member in again until they ask (the page's button).
  if (ctx.route === 'signed-out') return PROCEED;
  // The rules and policies are for anyone, before joining too (the register form links them).
  if (ctx.route === 'help') return PROCEED;
  if (ctx.route === 'review') return null;
  // 1. Not a friend of the official account: every route but /friend goes there (external).
  if (!ctx.isFriend) return ctx.route === 'friend' ? PROCEED : { kind: 'redirect', to: '/friend', external: true };
  return null;
}

/** One login per opening of the app: a stored session is reused (one my-info proves it and tells
 *  the review status); only without one, or when the server refuses it (401), does the member log
 *  in again. Once established, a navigation asks the server nothing. */
async function establish(lineUserId: string, deps: GuardDeps): Promise<ReviewStatus | null> {
  if (deps.hasToken()) {
    try {
      const facts = await deps.getMyInfo();
      if (facts.lineUserId === lineUserId) {
        deps.setReviewStatus(facts.status);
        return facts.status;
      }
      deps.endSession();
    } catch (err) {
      if (!deps.isRefused(err)) throw err;
    }
  }
  // A returning member logs in straight away (one round trip less); should that fail (the account
  // is gone since), the review status says where they stand.
  if (deps.wasMember()) {
    try {
      await deps.login(lineUserId);
      const facts = await deps.getMyInfo();
      if (facts.lineUserId === lineUserId) {
        deps.setReviewStatus(facts.status);
        return facts.status;
      }
    } catch {
      /* asked below */
    }
  }
  const status = await deps.getReviewStatus(lineUserId);
  deps.setReviewStatus(status);
  // No profile yet: nothing to log in to (no failed request on the way to /register).
  if (!status) return null;
  await deps.login(lineUserId);
  const facts = await deps.getMyInfo();
  deps.setReviewStatus(facts.status);
  return facts.status;
}

function known(ctx: GuardContext, deps: GuardDeps): ReviewStatus | null | undefined {
  const session = ctx.session;
  if (!session || session.lineUserId !== ctx.lineUserId || !deps.hasToken()) return undefined;
  return session.status;
}

export async function navigationGuard(ctx: GuardContext, deps: GuardDeps): Promise<GuardResult> {
  const atOnce = decideAtOnce(ctx);
  if (atOnce) return atOnce;

  // The reviewer console runs in ordinary browsers too: no friendship or registration
  // is asked of a reviewer, only a session; the server decides the role (the page shows its 403).
  if (ctx.route === 'review') {
    if (ctx.lineUserId && known(ctx, deps) === undefined) {
      try {
        if (!deps.hasToken()) await deps.login(ctx.lineUserId);
        await deps.getMyInfo().catch(async (err: unknown) => {
          if (!deps.isRefused(err)) throw err;
          await deps.login(ctx.lineUserId!);
          await deps.getMyInfo();
        });
      } catch {
        /* the page reports what the server answers */
      }
    }
    return PROCEED;
  }

  if (!ctx.lineUserId) return PROCEED;
  // 2. The review status (what this opening knows, or one my-info / login away) decides.
  let status = known(ctx, deps);
  try {
    // No profile as far as this opening knows: ask again (the member may just have registered).
    if (status == null) status = await establish(ctx.lineUserId, deps);
    // A member held back by a status this opening remembers asks once more before being sent
    // away (a reviewer may have approved them since).
    else if (MATCHMAKING_ROUTES.includes(ctx.route) && status.status !== 'APPROVED') {
      const facts = await deps.getMyInfo();
      deps.setReviewStatus(facts.status);
      status = facts.status;
    }
  } catch {
    // 3. Any failure: clear the review status; every route but register goes to register.
    deps.setReviewStatus(null);
    return ctx.route === 'register' ? PROCEED : { kind: 'redirect', to: '/register' };
  }
  if (!status) return ctx.route === 'register' ? PROCEED : { kind: 'redirect', to: '/register' };
  // A REJECTED member edits and resubmits through the register form, an APPROVED one
  // edits their profile there; a PENDING or SUSPENDED one has nothing to edit.
  if (ctx.route === 'register' && status.status !== 'REJECTED' && status.status !== 'APPROVED') return { kind: 'redirect', to: '/profile' };
  if (MATCHMAKING_ROUTES.includes(ctx.route) && status.status !== 'APPROVED') return { kind: 'redirect', to: '/profile' };
  return PROCEED;
}
