import { afterEach, describe, expect, it } from 'vitest';
import { clearSession, getUserInfo, getUserInfoHint, onSessionEnd, setUserInfo, type UserInfo } from '@/lib/auth';
import { getCookie, setCookie, USER_INFO_COOKIE } from '@/lib/cookies';

/** A my-info answer with every private field a member has. */
const info = {
  userId: 'U0123456789abcdef0123456789abcdef',
  roles: [],
  displayName: 'Mei LINE',
  avatar: 'avatar-file',
  reviewStatus: 'APPROVED',
  profile: {
    nickname: 'Mei',
    name: 'Lin Mei',
    birthday: '1994-05-12',
    address: 'No. 1, Da’an District',
    latitude: 25.03,
    longitude: 121.56,
    incomeRange: 'INCOME_100_150',
    companyEmail: 'mei.lin@tsmc.com',
    occupation: 'Firmware engineer',
  },
} as unknown as UserInfo;

const cookieJson = () => JSON.parse(getCookie(USER_INFO_COOKIE) ?? 'null') as unknown;

describe('stored auth: my-info in memory, three fields in the cookie', () => {
  afterEach(() => clearSession());

  it('keeps the whole my-info in memory and only nickname, status and avatar in the cookie', () => {
    setUserInfo(info);
    expect(getUserInfo()).toBe(info);
    expect(cookieJson()).toEqual({ nickname: 'Mei', status: 'APPROVED', avatar: 'avatar-file' });
    const everything = document.cookie + JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage });
    for (const secret of ['Lin Mei', '1994-05-12', 'Da’an', '25.03', '121.56', 'INCOME_100_150', 'tsmc.com', 'Firmware', 'U0123456789abcdef']) {
      expect(decodeURIComponent(everything)).not.toContain(secret);
    }
  });

  it('a member without a profile yet leaves an empty hint', () => {
    setUserInfo({ userId: info.userId, roles: [], profile: null, reviewStatus: null } as unknown as UserInfo);
    expect(cookieJson()).toEqual({});
  });

  it('a cookie an older version wrote with the whole answer is cut down when read', () => {
    setCookie(USER_INFO_COOKIE, JSON.stringify({ nickname: 'Mei', status: 'PENDING', name: 'Lin Mei', profile: { address: 'x' } }));
    expect(getUserInfoHint()).toEqual({ nickname: 'Mei', status: 'PENDING' });
    expect(cookieJson()).toEqual({ nickname: 'Mei', status: 'PENDING' });
  });

  it('the session’s end forgets my-info, drops both cookies and tells who listens', () => {
    let ended = 0;
    const stop = onSessionEnd(() => ended++);
    setUserInfo(info);
    clearSession();
    stop();
    expect(getUserInfo()).toBeNull();
    expect(getCookie(USER_INFO_COOKIE)).toBeNull();
    expect(ended).toBe(1);
  });
});
