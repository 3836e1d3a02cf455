import { sessionTtlSecs } from 'virtual:core-rules';

/** The session token and user info cookies last as long as the session (kizuna-core's
 *  `rules::SESSION_TTL_SECS`). */
export const COOKIE_MAX_AGE_S = sessionTtlSecs;
export const TOKEN_COOKIE = 'kizuna_token';
export const USER_INFO_COOKIE = 'kizuna_user_info';

export function getCookie(name: string): string | null {
  const prefix = `${name}=`;
  for (const part of document.cookie.split('; ')) {
    if (part.startsWith(prefix)) {
      try {
        return decodeURIComponent(part.slice(prefix.length));
      } catch {
        return null;
      }
    }
  }
  return null;
}

export function setCookie(name: string, value: string, maxAgeS = COOKIE_MAX_AGE_S): void {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${maxAgeS}; Path=/; SameSite=Lax${secure}`;
}

export function deleteCookie(name: string): void {
  document.cookie = `${name}=; Max-Age=0; Path=/; SameSite=Lax`;
}
