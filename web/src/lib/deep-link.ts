import { readRaw, remove, StorageKey } from '@/lib/storage';

/** The deep link a user opened (`liff.state` or `redirect`, captured at start-up), kept until they
 *  reach it: someone who must register first gets there after registering, not only on the start
 *  that brought the link. */
export function isSafeInternalPath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}

export function peekDeepLink(): string | null {
  const path = readRaw(StorageKey.redirectPath);
  return path && isSafeInternalPath(path) ? path : null;
}

/** The stored link, consumed. */
export function takeDeepLink(): string | null {
  const path = peekDeepLink();
  remove(StorageKey.redirectPath);
  return path;
}

/** A navigation ended at `href` (path, query and hash): the link is used up once it is reached. */
export function deepLinkReached(href: string): void {
  const link = peekDeepLink();
  if (!link) return;
  const target = new URL(link, location.origin);
  if (target.pathname + target.search + target.hash === href) remove(StorageKey.redirectPath);
}
