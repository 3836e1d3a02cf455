import { api } from '@/lib/api-client';
import { setToken, setUserInfo } from '@/lib/auth';
import type { ReviewStatus } from '@/lib/app-state';
import type { LoginBody, MyInfo, TokenBody, Uploaded } from '@/lib/api/types';

/** Calls shared by the guard and several features (spec §7). */

/** POST /user/login: account = password = the LINE user id; the ID token proves it (docs/design.md). */
export async function login(lineUserId: string, opts: { showToast?: boolean } = {}): Promise<string> {
  const body: LoginBody = { account: lineUserId, password: lineUserId };
  const res = await api.post<TokenBody>(
    '/user/login',
    body,
    { public: true, lineIdToken: true, showToast: opts.showToast },
  );
  if (!res || typeof res.token !== 'string') throw new Error('login: no token in the answer');
  setToken(res.token);
  return res.token;
}

/** GET /user/my-info, stored as user info. Never toasts (spec §8). */
export async function getMyInfo(): Promise<MyInfo> {
  const info = await api.get<MyInfo>('/user/my-info', { showToast: false });
  setUserInfo(info);
  return info;
}

/** GET /user/review-status/{userId}: public, carries the ID token, never toasts. null: the user has
 *  no profile yet (the server answers 204, a normal state rather than an error). */
export async function getReviewStatus(lineUserId: string): Promise<ReviewStatus | null> {
  const status = await api.get<ReviewStatus | undefined>(`/user/review-status/${encodeURIComponent(lineUserId)}`, {
    public: true,
    lineIdToken: true,
    showToast: false,
  });
  return status ?? null;
}

/** POST /file/tempUpload, multipart field `file`; answers {fileName}. */
export async function uploadTempFile(file: Blob, name = 'photo.jpg', opts: { showToast?: boolean } = {}): Promise<string> {
  const form = new FormData();
  form.append('file', file, name);
  const res = await api.upload<Uploaded>('/file/tempUpload', form, opts);
  if (!res || typeof res.fileName !== 'string') throw new Error('upload: no fileName in the answer');
  return res.fileName;
}
