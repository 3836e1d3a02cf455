import liff from '@line/liff/core';
import IsInClientModule from '@line/liff/is-in-client';
import IsLoggedInModule from '@line/liff/is-logged-in';
import LoginModule from '@line/liff/login';
import GetFriendshipModule from '@line/liff/get-friendship';
import GetProfileModule from '@line/liff/get-profile';
import GetIDTokenModule from '@line/liff/get-id-token';
import GetLanguageModule from '@line/liff/get-language';
import type { PublicConfig } from '@/lib/config';
import { addFriendUrl } from '@/lib/config';
import type { LiffUserProfile } from '@/lib/app-state';
import { readRaw, StorageKey, writeRaw } from '@/lib/storage';

/** The LIFF SDK (pluggable core + only the modules used) and the app's start-up. */
liff.use(new IsInClientModule());
liff.use(new IsLoggedInModule());
liff.use(new LoginModule());
liff.use(new GetFriendshipModule());
liff.use(new GetProfileModule());
liff.use(new GetIDTokenModule());
liff.use(new GetLanguageModule());

export { liff };

export const MOCK_BASE = '/__mock/line';

let idToken: string | null = null;
let mocked = false;

export function getLineIdToken(): string | null {
  if (mocked) return idToken;
  try {
    return liff.getIDToken();
  } catch {
    return null;
  }
}

export function isMocked(): boolean {
  return mocked;
}

export function isDebug(): boolean {
  return readRaw(StorageKey.debug) === 'true';
}

export interface MockLineUser {
  userId: string;
  displayName: string;
  pictureUrl?: string | null;
  friend: boolean;
}

export function randomLineUserId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `U${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

async function mockJson<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`${MOCK_BASE}${path}`, {
    ...init,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
  });
  if (!res.ok) throw new Error(`mock LINE ${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

export async function upsertMockUser(user: MockLineUser): Promise<MockLineUser> {
  const saved = await mockJson<MockLineUser>('/users', { method: 'POST', body: JSON.stringify(user) });
  return saved ?? user;
}

export async function getMockUser(userId: string): Promise<MockLineUser | null> {
  const res = await fetch(`${MOCK_BASE}/users/${encodeURIComponent(userId)}`);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`mock LINE user: HTTP ${res.status}`);
  return (await res.json()) as MockLineUser;
}

/** The mock user this browser plays (kept under kizuna:mock-user), created on first use. */
async function currentMockUser(): Promise<MockLineUser> {
  const stored = readRaw(StorageKey.mockUser);
  if (stored && /^U[0-9a-f]{32}$/.test(stored)) {
    const user = await getMockUser(stored);
    if (user) return user;
  }
  const userId = stored && /^U[0-9a-f]{32}$/.test(stored) ? stored : randomLineUserId();
  const user = await upsertMockUser({ userId, displayName: 'Kizuna Tester', friend: true });
  writeRaw(StorageKey.mockUser, userId);
  return user;
}

/** A fresh LINE ID token for the identity calls. The mock signs a new one; in LINE an expired
 *  token means logging in again (the draft survives the round trip in local storage). */
export async function refreshLineIdToken(): Promise<boolean> {
  if (mocked) {
    const userId = readRaw(StorageKey.mockUser);
    if (!userId) return false;
    const sign = () => mockJson<{ idToken: string }>('/id-token', { method: 'POST', body: JSON.stringify({ userId }) });
    let token: { idToken: string };
    try {
      token = await sign();
    } catch {
      // A restarted mock platform forgot its users: put this one back as the SDK knows it.
      const [profile, friendship] = await Promise.all([liff.getProfile(), liff.getFriendship()]);
      await upsertMockUser({ userId, displayName: profile.displayName, pictureUrl: profile.pictureUrl, friend: friendship.friendFlag });
      token = await sign();
    }
    if (!token.idToken || token.idToken === idToken) return false;
    idToken = token.idToken;
    return true;
  }
  try {
    const exp = (liff as unknown as { getDecodedIDToken?: () => { exp?: number } | null }).getDecodedIDToken?.()?.exp;
    if (exp && exp * 1000 > Date.now()) return false;
  } catch {
    /* fall through to login */
  }
  liff.login({ redirectUri: location.href });
  return false;
}

function isReviewPath(pathname: string): boolean {
  return /^\/review\/?$/.test(pathname);
}

export type StartupResult =
  | { kind: 'redirected' }
  | { kind: 'ready'; profile: LiffUserProfile; isFriend: boolean; language: string };

/** The app's start: in-client check → init → login → friendship → profile. */
export async function startLiff(config: PublicConfig): Promise<StartupResult> {
  mocked = config.mockEnable;
  // The reviewer console works in ordinary browsers: LINE Login instead of the redirect.
  const reviewConsole = isReviewPath(location.pathname);
  if (!mocked && !liff.isInClient() && !isDebug() && !reviewConsole) {
    location.replace(addFriendUrl(config.lineBotId));
    return { kind: 'redirected' };
  }

  if (mocked) {
    const [{ LiffMockPlugin }, user] = await Promise.all([import('@line/liff-mock'), currentMockUser()]);
    const token = await mockJson<{ idToken: string }>('/id-token', {
      method: 'POST',
      body: JSON.stringify({ userId: user.userId }),
    });
    idToken = token.idToken;
    liff.use(new LiffMockPlugin() as unknown as Parameters<typeof liff.use>[0]);
    (liff as unknown as { $mock: { set: (d: unknown) => void } }).$mock.set((prev: Record<string, unknown>) => ({
      ...prev,
      isInClient: true,
      isLoggedIn: true,
      getLanguage: navigator.language || 'en',
      getIDToken: idToken,
      getProfile: {
        userId: user.userId,
        displayName: user.displayName,
        pictureUrl: user.pictureUrl ?? undefined,
      },
      getFriendship: { friendFlag: Boolean(user.friend) },
      // A LINE recent enough for the share target picker, where the member picks a friend and
      // sends (the mock answers every API's availability with this one value).
      isApiAvailable: true,
      shareTargetPicker: { status: 'success' },
    }));
    // As LIFF's CDN build does: the SDK on `window.liff`, so that an end-to-end test can set the
    // mock's answers and see what the app hands the SDK (the mock records nothing it is given).
    (window as unknown as { liff: typeof liff }).liff = liff;
  }

  await liff.init({ liffId: config.liffId, ...(mocked ? { mock: true } : {}) } as Parameters<typeof liff.init>[0]);

  if (mocked) {
    // Inside LINE the SDK logs in during init; the mock needs the call to unlock its profile APIs.
    liff.login();
  } else if (!liff.isLoggedIn()) {
    liff.login({ redirectUri: location.href });
    return { kind: 'redirected' };
  }

  // A reviewer's browser login may not be linked to the official account; the console needs no
  // friendship, so its failure there is no start-up failure.
  const friendship = reviewConsole ? await liff.getFriendship().catch(() => ({ friendFlag: false })) : await liff.getFriendship();
  const profile = await liff.getProfile();
  return {
    kind: 'ready',
    isFriend: Boolean(friendship.friendFlag),
    profile: {
      userId: profile.userId,
      displayName: profile.displayName,
      pictureUrl: profile.pictureUrl,
      statusMessage: profile.statusMessage,
    },
    language: liff.getLanguage(),
  };
}

/** Friendship again (the /friend page re-checks on return). With the mock, the mock server's user
 *  is read afresh first. */
export async function refreshFriendship(): Promise<boolean> {
  if (mocked) {
    const profile = await liff.getProfile();
    const user = await getMockUser(profile.userId);
    (liff as unknown as { $mock: { set: (d: unknown) => void } }).$mock.set((prev: Record<string, unknown>) => ({
      ...prev,
      getFriendship: { friendFlag: Boolean(user?.friend) },
    }));
  }
  const friendship = await liff.getFriendship();
  return Boolean(friendship.friendFlag);
}

export function currentMockUserId(): string | null {
  return readRaw(StorageKey.mockUser);
}

/** The member's LINE access token, so that the server can ask LINE to revoke the app's
 *  authorisation when they leave; null on the mock platform or when LIFF has none. The module is
 *  loaded only here, where it is needed. */
export async function getLineAccessToken(): Promise<string | null> {
  if (mocked) return null;
  try {
    const { default: GetAccessTokenModule } = await import('@line/liff/get-access-token');
    liff.use(new GetAccessTokenModule());
    return liff.getAccessToken();
  } catch {
    return null;
  }
}
