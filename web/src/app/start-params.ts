import { StorageKey, writeRaw } from '@/lib/storage';
import { isSafeInternalPath, takeDeepLink } from '@/lib/deep-link';

/** Start-address parameters `redirect` and `liff.state` (spec §2): stored, then restored once the
 *  user is initialised and logged in, so deep links survive the login round trip. */
export function captureStartParams(url: URL): string | null {
  const redirect = url.searchParams.get('redirect');
  const liffState = url.searchParams.get('liff.state');
  let target: string | null = null;
  if (liffState) {
    // liff.state carries the path (or a "?query") of the deep link.
    target = liffState.startsWith('?') ? `/${liffState}` : liffState;
  } else if (redirect) {
    target = redirect;
  }
  if (target && isSafeInternalPath(target)) {
    writeRaw(StorageKey.redirectPath, target);
    return target;
  }
  return null;
}

export { isSafeInternalPath };

/** The stored return path, consumed. */
export function takeRedirectPath(): string | null {
  return takeDeepLink();
}

export function stripStartParams(url: URL): string {
  const clean = new URL(url.href);
  clean.searchParams.delete('redirect');
  clean.searchParams.delete('liff.state');
  for (const key of [...clean.searchParams.keys()]) if (key.startsWith('liff.')) clean.searchParams.delete(key);
  return clean.pathname + clean.search + clean.hash;
}
