import { describe, expect, it } from 'vitest';
import { translate } from '@/lib/i18n';
import en from '@/lib/i18n/locales/en.json';
import { previewOf, yearsOn } from '@/lib/profile-preview';

const t = (key: string, params?: Record<string, string | number>) => translate(en as Record<string, string>, key, params, 'en');
const cat = {
  cities: [{ code: 'TPE', key: 'city.taipei_city' }],
  tags: {
    personality: [{ id: 101, key: 'tag.personality.outgoing' }],
    exercise: [],
    hobby: [{ id: 301, key: 'tag.hobby.reading' }],
    marriageType: [],
    fertilityPlan: [],
    pet: [],
  },
} as unknown as Parameters<typeof previewOf>[1];

describe('the preview of a profile', () => {
  it('counts completed years, the birthday itself included', () => {
    expect(yearsOn('1994-07-21', '2026-07-20')).toBe(31);
    expect(yearsOn('1994-07-21', '2026-07-21')).toBe(32);
    expect(yearsOn('', '2026-07-21')).toBeNull();
    expect(yearsOn('2030-01-01', '2026-07-21')).toBeNull();
  });

  it('shows what others see, in form order, and nothing private', () => {
    const p = previewOf(
      {
        nickname: 'Mei', birthday: '1994-07-21', city: 'TPE', occupationType: 'SOFTWARE_ENGINEERING', occupation: 'Designer',
        aboutMe: 'Hiking.', datingQuestion: 'The sea', dailyLife: '  ', surprisePoint: null,
        photoNameList: ['a.jpg', '', 'b.jpg'], personalityTagIds: [101, 999], hobbyTagIds: [301], exerciseTagIds: [],
        // Not part of a preview: the type has no room for them, and nothing reads them.
        ...({ name: 'Lin Mei', address: 'No. 7 Secret Lane' } as object),
      },
      cat, t, '2026-11-25',
    );
    expect(p).toMatchObject({ nickname: 'Mei', age: 32, city: 'Taipei City', work: 'Software engineering · Designer', photos: ['a.jpg', 'b.jpg'] });
    expect(p.answers).toEqual([{ question: en['field.datingQuestion'], text: 'The sea' }]);
    expect(p.tagGroups.map((g) => [g.title, g.labels.length])).toEqual([['Personality', 1], ['Hobbies', 1]]);
    expect(JSON.stringify(p)).not.toMatch(/Lin Mei|Secret Lane|1994/);
  });
});
