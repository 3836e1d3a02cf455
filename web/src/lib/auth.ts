import { deleteCookie, getCookie, setCookie, TOKEN_COOKIE, USER_INFO_COOKIE } from '@/lib/cookies';
import { createStore } from '@/lib/store';
import type { MyInfo } from '@/lib/api/types';

/** Stored auth: the session token and the user info cookies, 7 days. my-info's answer
 *  (name, birthday, address, coordinates, income, work e-mail…) lives in memory only, for this
 *  opening of the app; the `kizuna_user_info` cookie, sent with every request, keeps only what a
 *  first paint may show before my-info answers (docs/design.md "Client storage"). */
export type UserInfo = MyInfo;

/** The user info cookie: the member's nickname, review status and avatar file, nothing else. */
export interface UserInfoHint {
  nickname?: string;
  status?: string;
  avatar?: string;
}
const HINT_KEYS: readonly (keyof UserInfoHint)[] = ['nickname', 'status', 'avatar'];

/** my-info as last answered in this opening of the app (memory only). */
export const userInfoStore = createStore<{ info: UserInfo | null }>({ info: null });

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
  return userInfoStore.get().info;
}

function hintOf(info: UserInfo): UserInfoHint {
  const hint: UserInfoHint = {};
  if (info.profile?.nickname) hint.nickname = info.profile.nickname;
  if (info.reviewStatus) hint.status = info.reviewStatus;
  if (info.avatar) hint.avatar = info.avatar;
  return hint;
}

function writeHint(hint: UserInfoHint) {
  setCookie(USER_INFO_COOKIE, JSON.stringify(hint));
}

/** What the cookie says (the last opening's nickname, status and avatar); a cookie written by an
 *  older version with more in it is cut down to those on the way. */
export function getUserInfoHint(): UserInfoHint | null {
  const raw = getCookie(USER_INFO_COOKIE);
  if (!raw) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    deleteCookie(USER_INFO_COOKIE);
    return null;
  }
  if (!parsed || typeof parsed !== 'object') return null;
  const hint: UserInfoHint = {};
  for (const key of HINT_KEYS) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value === 'string') hint[key] = value;
  }
  if (Object.keys(parsed).some((k) => !HINT_KEYS.includes(k as keyof UserInfoHint))) writeHint(hint);
  return hint;
}

export function setUserInfo(info: UserInfo): void {
  userInfoStore.set({ info });
  writeHint(hintOf(info));
}

export function clearUserInfo(): void {
  userInfoStore.set({ info: null });
  deleteCookie(USER_INFO_COOKIE);
}

const sessionEndListeners = new Set<() => void>();

/** Called when the session ends (sign-out, deletion, another LINE user): whatever was loaded for
 *  the member goes with it. */
export function onSessionEnd(listener: () => void): () => void {
  sessionEndListeners.add(listener);
  return () => sessionEndListeners.delete(listener);
}

export function clearSession(): void {
  clearToken();
  clearUserInfo();
  sessionEndListeners.forEach((l) => l());
}
