import { describe, expect, it } from 'vitest';
import { avatarSource, summarise } from '@/features/profile/api/profile-api';

describe('profile summary', () => {
  it('reads my-info', () => {
    expect(summarise(null)).toEqual({ photos: [] });
    const s = summarise({ displayName: 'Mei', avatar: 'a1', profile: { nickname: 'mei', city: 'TPE', birthday: '1994-05-12', photoNameList: ['p1', 'p2'] } as never });
    expect(s).toMatchObject({ nickname: 'mei', displayName: 'Mei', city: 'TPE', birthday: '1994-05-12', photos: ['p1', 'p2'], avatar: 'a1' });
    expect(summarise({ displayName: null, avatar: null, profile: null })).toEqual({ photos: [], nickname: undefined, displayName: undefined, occupation: undefined, city: undefined, birthday: undefined, aboutMe: undefined, avatar: undefined });
  });

  it('the avatar: the chosen one, else the first photo, else the LINE picture', () => {
    expect(avatarSource({ photos: ['p1'], avatar: 'a1' }, 'https://line/pic')).toBe('/api/file/fetch/a1');
    expect(avatarSource({ photos: ['p1', 'p2'] }, 'https://line/pic')).toBe('/_ipx/s_96x96,fit_cover,f_webp/api/file/fetch/p1');
    expect(avatarSource({ photos: [] }, 'https://line/pic')).toBe('https://line/pic');
    expect(avatarSource({ photos: [] })).toBeUndefined();
  });
});
