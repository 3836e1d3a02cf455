import { api } from '@/lib/api-client';
import { getMyInfo, getReviewStatus, uploadTempFile } from '@/lib/user-api';
import { remove, StorageKey, writeJson, writeRaw } from '@/lib/storage';
import { loadCore } from '@/lib/wasm';

export { getMyInfo, getReviewStatus };

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

/** "Edit and resubmit": the stored profile becomes the register form's draft through the core's
 *  draft repair (the same reading as any stored draft), on its first step. */
export async function startResubmission(): Promise<void> {
  const [core, info] = await Promise.all([loadCore(), getMyInfo()]);
  const repaired = core.repairDraft(info.profile ?? null);
  if (repaired.discarded) throw new Error('the stored profile could not be read as a draft');
  remove(StorageKey.profilePhotos);
  remove(StorageKey.emailConfirmed);
  writeJson(StorageKey.registerForm, repaired.draft);
  writeRaw(StorageKey.registerPage, '0');
}
