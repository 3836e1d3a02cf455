/** Local storage under the app prefix (docs/design.md "Client storage"). Never throws: private mode,
 *  a full quota or a disabled store must not break the app. */
export const STORAGE_PREFIX = 'kizuna:';

export const StorageKey = {
  registerForm: 'register-form',
  registerPage: 'register-page',
  redirectPath: 'redirect-path',
  pushVisit: 'push-visit',
  profilePhotos: 'profile-photos',
  debug: 'debug',
  mockUser: 'mock-user',
  emailConfirmed: 'email-confirmed',
  resubmit: 'resubmit',
  registerWelcomed: 'register-welcomed',
} as const;
export type StorageKey = (typeof StorageKey)[keyof typeof StorageKey];

function store(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

export function readRaw(key: StorageKey): string | null {
  try {
    return store()?.getItem(STORAGE_PREFIX + key) ?? null;
  } catch {
    return null;
  }
}

/** Parsed JSON, or `null` when absent; `undefined` when the stored text is not JSON. */
export function readJson(key: StorageKey): unknown {
  const raw = readRaw(key);
  if (raw === null) return null;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** Returns false when the value could not be stored (quota, disabled storage). */
export function writeRaw(key: StorageKey, value: string): boolean {
  try {
    const s = store();
    if (!s) return false;
    s.setItem(STORAGE_PREFIX + key, value);
    return true;
  } catch {
    return false;
  }
}

export function writeJson(key: StorageKey, value: unknown): boolean {
  return writeRaw(key, JSON.stringify(value));
}

export function remove(key: StorageKey): void {
  try {
    store()?.removeItem(STORAGE_PREFIX + key);
  } catch {
    /* nothing to do */
  }
}
