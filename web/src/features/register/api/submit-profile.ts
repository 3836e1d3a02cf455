import { api, ApiError, NETWORK_ERROR } from '@/lib/api-client';
import type { TFunction } from '@/lib/i18n';
import type { UserProfileCreateBody } from '@/lib/api/types';
import { getToken } from '@/lib/auth';
import { login } from '@/lib/user-api';
import { uploadTempFile } from '@/lib/upload';
import { dataUrlBlob } from '@/lib/data-url';
import type { Core, FieldErrors, RegisterDraft, UserProfileCreate } from '@/lib/wasm';
import { clearDraftStorage, getPhoto, isLocalToken } from '@/features/register/lib/draft-storage';
import { getMyInfo } from '@/lib/user-api';
import { describeError, logger } from '@/lib/logger';
import { toast } from '@/lib/toast';
import { navigate } from '@/lib/navigation';
import { peekDeepLink } from '@/lib/deep-link';

/** Registration submit: log in without a session, upload each non-empty photo slot as a
 *  temp file, wait 500 ms, create the profile. Nothing typed is touched on failure; uploads that
 *  succeeded are remembered so a retry only sends what is missing. */
export const WAIT_AFTER_UPLOADS_MS = 500;

export interface SubmitDeps {
  hasSession(): boolean;
  login(lineUserId: string): Promise<unknown>;
  upload(blob: Blob, name: string): Promise<string>;
  readLocalFile(token: string): Promise<Blob | null>;
  createProfile(payload: UserProfileCreate): Promise<unknown>;
  wait(ms: number): Promise<void>;
  /** Edit and resubmit: createProfile is the PUT, whose 409 is a real conflict. */
  resubmit?: boolean;
}

export class SubmitValidationError extends Error {
  constructor(readonly fields: FieldErrors) {
    super('validation failed');
    this.name = 'SubmitValidationError';
  }
}

export class MissingLocalFileError extends Error {
  constructor(readonly token: string) {
    super(`local file ${token} is gone`);
    this.name = 'MissingLocalFileError';
  }
}

/** local token → server temp file name, for retries within this page session. */
const uploaded = new Map<string, string>();

export function forgetUploads(): void {
  uploaded.clear();
}

async function resolveFile(token: string, deps: SubmitDeps): Promise<string> {
  if (!token || !isLocalToken(token)) return token;
  const known = uploaded.get(token);
  if (known) return known;
  const blob = await deps.readLocalFile(token);
  if (!blob) throw new MissingLocalFileError(token);
  const name = await deps.upload(blob, `${token}.jpg`);
  uploaded.set(token, name);
  return name;
}

export async function submitProfile(
  core: Pick<Core, 'buildPayload'>,
  draft: RegisterDraft,
  lineUserId: string,
  today: string,
  deps: SubmitDeps,
): Promise<void> {
  const precheck = core.buildPayload(draft, lineUserId, today);
  if (!precheck.payload || Object.keys(precheck.errors).length) throw new SubmitValidationError(precheck.errors);

  if (!deps.hasSession()) await deps.login(lineUserId);

  const photoNameList: string[] = [];
  for (const slot of draft.photoNameList) photoNameList.push(slot ? await resolveFile(slot, deps) : '');
  const verifyTempFileName = draft.verifyTempFileName ? await resolveFile(draft.verifyTempFileName, deps) : '';

  await deps.wait(WAIT_AFTER_UPLOADS_MS);

  const final = core.buildPayload({ ...draft, photoNameList, verifyTempFileName }, lineUserId, today);
  if (!final.payload || Object.keys(final.errors).length) throw new SubmitValidationError(final.errors);
  try {
    await deps.createProfile(final.payload);
  } catch (err) {
    // E005: the profile exists already (an earlier attempt got through before its answer was lost).
    if (err instanceof ApiError && err.code === 'E005' && !deps.resubmit) return;
    // The server no longer knows an upload (expired after 24 h, or claimed): the next attempt must
    // upload the photos again instead of re-using those names.
    const unknownFile = err instanceof ApiError && Object.values(err.fields ?? {}).some((codes) => codes.includes('unknown_file'));
    if (unknownFile) forgetUploads();
    throw err;
  }
  forgetUploads();
}

/** The core's payload has the fields the server's OpenAPI document names, no more and no fewer: a
 *  field renamed on either side fails the type check here. (The core's type marks every field
 *  optional; its validation, run before submit, is what makes them present.) */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
export type PayloadMatchesApi = SameKeys<UserProfileCreate, UserProfileCreateBody> extends true ? true : never;
export const payloadMatchesApi: PayloadMatchesApi = true;

export const defaultSubmitDeps: SubmitDeps = {
  hasSession: () => Boolean(getToken()),
  login: (id) => login(id, { showToast: false }),
  upload: (blob, name) => uploadTempFile(blob, name, { showToast: false }),
  readLocalFile: async (token) => {
    const dataUrl = getPhoto(token);
    return dataUrl ? dataUrlBlob(dataUrl) : null;
  },
  createProfile: (payload) =>
    api.post('/user-profile', { body: payload as UserProfileCreateBody, public: true, lineIdToken: true, showToast: false }),
  wait: (ms) => new Promise((r) => setTimeout(r, ms)),
};

/** A REJECTED member's edited profile goes back with PUT /user-profile (session): PENDING again. */
export const resubmitDeps: SubmitDeps = {
  ...defaultSubmitDeps,
  createProfile: (payload) => api.put('/user-profile', { body: payload as UserProfileCreateBody, showToast: false }),
  resubmit: true,
};

/** An APPROVED member's edit goes with PUT /user-profile/edit (session): what they
 *  look for counts at once, the rest waits for review as a revision. */
export const editDeps: SubmitDeps = {
  ...defaultSubmitDeps,
  createProfile: (payload) => api.put('/user-profile/edit', { body: payload as UserProfileCreateBody, showToast: false }),
  resubmit: true,
};

/** What the review step says about a failed submit: the fields the server's core rules reported
 *  (it ran the same rules and disagreed), a network failure, or the server's cause. */
export function submitFailureText(err: unknown, t: TFunction, message: (field: string, code: string) => string): string {
  if (err instanceof SubmitValidationError) return t('register.fixErrors');
  if (err instanceof MissingLocalFileError) return t('register.photoLost');
  if (err instanceof ApiError && err.fields && Object.keys(err.fields).length) {
    const details = Object.entries(err.fields)
      .map(([field, codes]) => `${t(field.startsWith('valueItem.') ? `condition.${field.split('.')[1]}` : `field.${field.split(/[.[]/)[0]}`)}: ${message(field, codes[0] ?? 'invalid')}`)
      .join('; ');
    return `${err.causeText} (${details})`;
  }
  if (err instanceof ApiError) return err.code === NETWORK_ERROR ? t('error.network') : err.causeText;
  return t('error.unexpected');
}

/** The register form's submit once its rules passed: the profile sent (`mode`: a new member's, a
 *  rejected one's resubmission, an approved member's edit), then on to the profile (or the deep
 *  link opened before registering). Here rather than in the page, since only the end of the form
 *  needs it. The failure's text, or null once sent. */
export async function sendRegistration(
  { core, draft, lineUserId, today, t, message }: { core: Core; draft: RegisterDraft; lineUserId: string; today: string; t: TFunction; message: (field: string, code: string) => string },
  mode: 'new' | 'resubmit' | 'edit',
): Promise<string | null> {
  try {
    await submitProfile(core, draft, lineUserId, today, mode === 'edit' ? editDeps : mode === 'resubmit' ? resubmitDeps : defaultSubmitDeps);
  } catch (err) {
    logger.warn(`register submit failed: ${describeError(err)}`);
    return submitFailureText(err, t, message);
  }
  clearDraftStorage();
  // The review status changed (a new profile, or a resubmission back to PENDING), or a revision
  // waits: the app asks my-info once now, since navigations no longer do (one login per opening).
  const info = await getMyInfo().catch((err: unknown) => {
    logger.warn(`my-info after submit: ${describeError(err)}`);
    return null;
  });
  if (mode === 'edit') {
    toast.success(t(info?.revision?.status === 'PENDING' ? 'register.editedForReview' : 'register.edited'));
    await navigate('/profile', { replace: true });
    return null;
  }
  toast.success(t('register.submitted'));
  // A deep link opened before registering is followed now (the guards decide whether it can be
  // used yet; it stays stored until it is reached).
  await navigate(peekDeepLink() ?? '/profile', { replace: true });
  return null;
}
