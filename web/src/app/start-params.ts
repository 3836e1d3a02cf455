import { readRaw, remove, StorageKey, writeRaw } from '@/lib/storage';
import { isSafeInternalPath, takeDeepLink } from '@/lib/deep-link';

/** Start-address parameters `redirect` and `liff.state`: stored, then restored once the
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
  // A push's permanent link names its kind (`via`): kept for one count, never part of the screen.
  const via = (target && isSafeInternalPath(target) ? splitVia(target).via : null) ?? url.searchParams.get('via');
  if (via && PUSH_KINDS.includes(via)) writeRaw(StorageKey.pushVisit, via);
  if (target && isSafeInternalPath(target)) {
    const path = splitVia(target).path;
    writeRaw(StorageKey.redirectPath, path);
    return path;
  }
  return null;
}

/** The kinds of push whose links carry `via` (kizuna-core's `push::PushKind`). */
const PUSH_KINDS = ['match', 'message', 'introductions', 'review', 'safety', 'we_met'];

/** A path without its `via` parameter, and that parameter. */
export function splitVia(path: string): { path: string; via: string | null } {
  const url = new URL(path, 'https://app.invalid');
  const via = url.searchParams.get('via');
  if (via === null) return { path, via: null };
  url.searchParams.delete('via');
  return { path: url.pathname + url.search + url.hash, via };
}

/** The push kind this start arrived through, once: the caller counts it (POST /api/visits, which
 *  stores only the day and the kind). Kept across LINE Login's round trip until then. */
export function takePushVisit(): string | null {
  const via = readRaw(StorageKey.pushVisit);
  remove(StorageKey.pushVisit);
  return via && PUSH_KINDS.includes(via) ? via : null;
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
  clean.searchParams.delete('via');
  for (const key of [...clean.searchParams.keys()]) if (key.startsWith('liff.')) clean.searchParams.delete(key);
  return clean.pathname + clean.search + clean.hash;
}
