import { api } from '@/lib/api-client';
import { getMyInfo } from '@/lib/user-api';
import { uploadTempFile } from '@/lib/upload';
import { clearSession, type UserInfo } from '@/lib/auth';
import type { DataExport, DataExportRequested, Schemas } from '@/lib/api/types';
import { getLineAccessToken } from '@/lib/liff';
import { imageUrl, ipxUrl } from '@/lib/image-url';

export { getMyInfo };

/** "Edit and resubmit": the register form filled from the stored profile (the module the register
 *  page uses when a rejected member opens it directly). */
export async function startResubmission(): Promise<void> {
  await import('@/lib/resubmission').then((m) => m.startResubmission());
}

/** PUT /user-profile/avatar {avatar}: the avatar is a temp upload claimed by this call. */
export async function changeAvatar(file: Blob): Promise<void> {
  const fileName = await uploadTempFile(file, 'avatar.jpg');
  await api.put('/user-profile/avatar', { body: { avatar: fileName } });
}

/** What the profile page shows, read from my-info (its generated type: a field renamed on the
 *  server fails the type check here). */
export interface ProfileSummary {
  nickname?: string;
  displayName?: string;
  occupation?: string;
  city?: string;
  birthday?: string;
  aboutMe?: string;
  photos: string[];
  avatar?: string;
}

export function summarise(info: Pick<UserInfo, 'displayName' | 'avatar' | 'profile'> | null): ProfileSummary {
  const profile = info?.profile ?? undefined;
  return {
    nickname: profile?.nickname || undefined,
    displayName: info?.displayName || undefined,
    occupation: profile?.occupation || undefined,
    city: profile?.city,
    birthday: profile?.birthday || undefined,
    aboutMe: profile?.aboutMe || undefined,
    photos: (profile?.photoNameList ?? []).filter(Boolean),
    avatar: info?.avatar || undefined,
  };
}

/** The avatar shown: the one the member chose, else their first photo (square, through the image
 *  proxy) until they choose one, else their LINE picture. */
export function avatarSource(summary: ProfileSummary, linePicture?: string | null): string | undefined {
  if (summary.avatar) return imageUrl(summary.avatar) ?? undefined;
  const first = summary.photos[0];
  if (first) return ipxUrl(first, { w: AVATAR_PX * 2, h: AVATAR_PX * 2, fit: 'cover', format: 'webp' });
  return linePicture ?? undefined;
}

/** The profile header's avatar size (CSS px). */
export const AVATAR_PX = 48;

/** POST /user/appeal {text}: a suspended member asks, once per suspension, for a second look. */
export async function sendAppeal(text: string): Promise<void> {
  await api.post('/user/appeal', { body: { text }, showToast: false });
}

/** POST /user/logout: this device's session ends; the stored token and user info go with it. */
export async function signOut(): Promise<void> {
  await api.post('/user/logout', { showToast: false });
  clearSession();
}

/** POST /user/logout-all: every session of the member ends, on every device. */
export async function signOutEverywhere(): Promise<void> {
  await api.post('/user/logout-all', { showToast: false });
  clearSession();
}

/** DELETE /user/account: the account and everything in it go; the stored session goes too. The
 *  LINE access token goes with it so that LINE revokes the app's authorisation. */
export async function deleteAccount(): Promise<void> {
  await api.delete('/user/account', { body: { lineAccessToken: (await getLineAccessToken()) ?? undefined }, showToast: false });
  clearSession();
}

/** A copy of the member's data (an object, so that tests can stand in for the server). */
export const dataExportApi = {
  /** POST /user/data-export: asks for a copy of everything the service holds about the member.
   *  The answer's `downloadUrl` is given only once; it works for 10 minutes once the copy is ready. */
  request: (): Promise<DataExportRequested> =>
    api.post('/user/data-export', { showToast: false }),
  /** GET /user/data-export: where the latest copy stands (null when none was asked for today). */
  status: async (): Promise<DataExport | null> =>
    (await api.get('/user/data-export', { showToast: false })) ?? null,
};

/** How long review usually takes now (the last week's first decisions): `usual` is null while
 *  there were too few to say. */
export type ReviewTime = Schemas['ReviewTimeView'];

export const reviewTimeApi = {
  /** GET /review-time (any signed-in user; 30 a minute). */
  get: (): Promise<ReviewTime> => api.get('/review-time', { showToast: false }),
};
