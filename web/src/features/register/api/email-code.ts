import { api } from '@/lib/api-client';
import { getToken } from '@/lib/auth';
import { login } from '@/lib/user-api';
import { readRaw, StorageKey, writeRaw } from '@/lib/storage';

/** The work e-mail code (issue 14): the server mails 6 digits to a COMPANY_EMAIL address and the
 *  member types them in before submitting. Both calls need a session, which a member who has not
 *  registered yet gets by logging in with the LINE ID token (login works without a profile). */
export interface CodeSent {
  email: string;
  expiresAt: number;
  resendAfter: number;
}

async function ensureSession(lineUserId: string): Promise<void> {
  if (!getToken()) await login(lineUserId, { showToast: false });
}

export async function sendEmailCode(lineUserId: string, email: string): Promise<CodeSent> {
  await ensureSession(lineUserId);
  return api.post<CodeSent>('/verification/email-code', { email }, { showToast: false });
}

export async function confirmEmailCode(lineUserId: string, email: string, code: string): Promise<string> {
  await ensureSession(lineUserId);
  const res = await api.post<{ email: string; confirmedAt: number }>('/verification/email-code/confirm', { email, code }, { showToast: false });
  writeRaw(StorageKey.emailConfirmed, res.email);
  return res.email;
}

/** The address as the server stores it (trimmed, lower-cased). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Whether this browser confirmed the address (the server keeps the confirmation for 24 hours and
 *  has the last word at submit). */
export function isEmailConfirmed(email: string): boolean {
  const confirmed = readRaw(StorageKey.emailConfirmed);
  return Boolean(email) && confirmed === normaliseEmail(email);
}
