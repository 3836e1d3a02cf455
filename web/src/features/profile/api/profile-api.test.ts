import { describe, expect, it } from 'vitest';
import { summarise } from '@/features/profile/api/profile-api';

describe('profile summary', () => {
  it('reads nested and flat my-info shapes', () => {
    expect(summarise(null)).toEqual({ photos: [] });
    const s = summarise({ displayName: 'Mei', avatar: 'a1', profile: { nickname: 'mei', city: 'TPE', photoNameList: ['p1', 'p2'] } });
    expect(s).toMatchObject({ nickname: 'mei', displayName: 'Mei', city: 'TPE', photos: ['p1', 'p2'], avatar: 'a1' });
    expect(summarise({ nickname: 'x', photos: [{ fileId: 'f1' }, { fileName: 'f2' }] }).photos).toEqual(['f1', 'f2']);
  });
});
