import { readRaw, StorageKey } from '@/lib/storage';
import type { Core } from '@/lib/wasm';

/** What submit needs of the work e-mail code step (the step itself loads with the work step). */

/** Whether this browser confirmed the address (the server keeps the confirmation for 24 hours and
 *  has the last word at submit). The stored address is the server's; the typed one is compared as
 *  the server normalises it (kizuna-core's `email::normalise`). */
export function isEmailConfirmed(core: Pick<Core, 'normaliseEmail'>, email: string): boolean {
  const normalised = core.normaliseEmail(email);
  return Boolean(normalised) && readRaw(StorageKey.emailConfirmed) === normalised;
}
