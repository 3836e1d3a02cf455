import { readRaw, StorageKey } from '@/lib/storage';

/** What submit needs of the work e-mail code step (the step itself loads with the work step). */

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
