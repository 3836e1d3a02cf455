import { deleteCookie, getCookie, setCookie, TOKEN_COOKIE, USER_INFO_COOKIE } from '@/lib/cookies';
import type { MyInfo } from '@/lib/api/types';

/** Stored auth (spec §3): token and userInfo cookies, 7 days; logged in = either present. The user
 *  info is my-info's answer; read back from the cookie it may lack what did not fit (below). */
export type UserInfo = Partial<MyInfo>;

let userInfoCache: UserInfo | null = null;

export function getToken(): string | null {
  return getCookie(TOKEN_COOKIE);
}

export function setToken(token: string): void {
  setCookie(TOKEN_COOKIE, token);
}

export function clearToken(): void {
  deleteCookie(TOKEN_COOKIE);
}

export function getUserInfo(): UserInfo | null {
  if (userInfoCache) return userInfoCache;
  const raw = getCookie(USER_INFO_COOKIE);
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    userInfoCache = parsed && typeof parsed === 'object' ? (parsed as UserInfo) : null;
  } catch {
    userInfoCache = null;
  }
  return userInfoCache;
}

/** Cookies hold about 4 KB: the full object stays in memory, the cookie keeps what fits. */
export function setUserInfo(info: UserInfo): void {
  userInfoCache = info;
  let text = JSON.stringify(info);
  if (encodeURIComponent(text).length > 3500) {
    const small: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(info)) if (typeof v !== 'object' || v === null) small[k] = v;
    text = JSON.stringify(small);
  }
  setCookie(USER_INFO_COOKIE, text);
}

export function clearUserInfo(): void {
  userInfoCache = null;
  deleteCookie(USER_INFO_COOKIE);
}

export function isLoggedIn(): boolean {
  return Boolean(getToken() || getUserInfo());
}

export function clearSession(): void {
  clearToken();
  clearUserInfo();
}
