import { api } from '@/lib/api-client';
import { setToken, setUserInfo } from '@/lib/auth';
import { appState, type ReviewStatus } from '@/lib/app-state';
import type { MyInfo } from '@/lib/api/types';

/** Calls shared by the guard and several features. */

let told: (status: ReviewStatus | null) => void = () => {};
let nextMyInfo = new Promise<ReviewStatus | null>((resolve) => (told = resolve));

/** Settles with the review status of this opening's next my-info answer: what is asked ahead of a
 *  screen waits for it, so that nothing goes out under a session the server has ended (a
 *  suspension ends every session) nor asks for what the status does not allow. */
export function afterMyInfo(): Promise<ReviewStatus | null> {
  return nextMyInfo;
}

/** POST /user/login: account = password = the LINE user id; the ID token proves it (docs/design.md). */
export async function login(lineUserId: string, opts: { showToast?: boolean } = {}): Promise<string> {
  const res = await api.post('/user/login', {
    body: { account: lineUserId, password: lineUserId },
    public: true,
    lineIdToken: true,
    showToast: opts.showToast,
  });
  if (!res || typeof res.token !== 'string') throw new Error('login: no token in the answer');
  setToken(res.token);
  return res.token;
}

/** GET /user/my-info, kept as the user info (in memory; lib/auth), and the review status it
 *  carries. Never toasts. */
export async function getMyInfo(): Promise<MyInfo> {
  const info = await api.get('/user/my-info', { showToast: false });
  setUserInfo(info);
  const status = reviewStatusOf(info);
  appState.set({ reviewStatus: status });
  told(status);
  nextMyInfo = new Promise<ReviewStatus | null>((resolve) => (told = resolve));
  return info;
}

/** The review status as my-info tells it (the same facts as GET /user/review-status). */
export function reviewStatusOf(info: MyInfo): ReviewStatus | null {
  if (!info.reviewStatus) return null;
  const decision = info.reviewDecision;
  return {
    userId: info.userId,
    status: info.reviewStatus,
    reasons: decision?.reasons ?? [],
    note: decision?.note ?? null,
    updatedAt: decision?.decidedAt ?? 0,
  };
}

/** GET /user/review-status/{userId}: public, carries the ID token, never toasts. null: the user has
 *  no profile yet (the server answers 204, a normal state rather than an error). */
export async function getReviewStatus(lineUserId: string): Promise<ReviewStatus | null> {
  const status = await api.get('/user/review-status/{userId}', {
    path: { userId: lineUserId },
    public: true,
    lineIdToken: true,
    showToast: false,
  });
  return (status as ReviewStatus | undefined) ?? null;
}
