import { api } from '@/lib/api-client';
import { getToken } from '@/lib/auth';
import { login } from '@/lib/user-api';
import { StorageKey, writeRaw } from '@/lib/storage';
import type { EmailCodeSent } from '@/lib/api/types';

export { isEmailConfirmed } from '@/features/register/lib/email-confirmed';

/** The work e-mail code (docs/design.md "Limits", and "Review" for how it verifies): the server mails a code to a COMPANY_EMAIL address and the
 *  member types them in before submitting. Both calls need a session, which a member who has not
 *  registered yet gets by logging in with the LINE ID token (login works without a profile). */
export type CodeSent = EmailCodeSent;

async function ensureSession(lineUserId: string): Promise<void> {
  if (!getToken()) await login(lineUserId, { showToast: false });
}

export async function sendEmailCode(lineUserId: string, email: string): Promise<CodeSent> {
  await ensureSession(lineUserId);
  return api.post('/verification/email-code', { body: { email }, showToast: false });
}

export async function confirmEmailCode(lineUserId: string, email: string, code: string): Promise<string> {
  await ensureSession(lineUserId);
  const res = await api.post('/verification/email-code/confirm', { body: { email, code }, showToast: false });
  writeRaw(StorageKey.emailConfirmed, res.email);
  return res.email;
}
