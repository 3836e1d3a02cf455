import { api } from '@/lib/api-client';
import { getMyInfo, getReviewStatus, uploadTempFile } from '@/lib/user-api';

export { getMyInfo, getReviewStatus };

/** "Edit and resubmit": the register form filled from the stored profile (the module the register
 *  page uses when a rejected member opens it directly). */
export async function startResubmission(): Promise<void> {
  await import('@/lib/resubmission').then((m) => m.startResubmission());
}

/** PUT /user-profile/avatar {avatar}: the avatar is a temp upload claimed by this call. */
export async function changeAvatar(file: Blob): Promise<void> {
  const fileName = await uploadTempFile(file, 'avatar.jpg');
  await api.put('/user-profile/avatar', { avatar: fileName });
}

/** What the profile page shows, read from my-info whatever its exact nesting. */
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

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

export function summarise(info: Record<string, unknown> | null): ProfileSummary {
  if (!info) return { photos: [] };
  const nested = (info.profile && typeof info.profile === 'object' ? info.profile : {}) as Record<string, unknown>;
  const pick = (k: string) => str(nested[k]) ?? str(info[k]);
  const photoSource = nested.photoNameList ?? nested.photos ?? info.photoNameList ?? info.photos;
  const photos = Array.isArray(photoSource)
    ? photoSource
        .map((p) => (typeof p === 'string' ? p : p && typeof p === 'object' ? str((p as Record<string, unknown>).fileName ?? (p as Record<string, unknown>).fileId) : undefined))
        .filter((p): p is string => Boolean(p))
    : [];
  return {
    nickname: pick('nickname'),
    displayName: pick('displayName'),
    occupation: pick('occupation'),
    city: pick('city'),
    birthday: pick('birthday'),
    aboutMe: pick('aboutMe'),
    photos,
    avatar: pick('avatar') ?? pick('avatarFileId') ?? pick('avatarUrl') ?? pick('pictureUrl'),
  };
}
