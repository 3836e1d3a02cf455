import { describe, expect, it } from 'vitest';
import { loadCore } from '@/lib/wasm';
import { translate, type TFunction } from '@/lib/i18n';
import ja from '@/lib/i18n/locales/ja.json';
import zh from '@/lib/i18n/locales/zh-TW.json';
import { showValue } from '@/features/review/lib/profile-values';

// With the real core's catalogues and the real catalogues of messages.
const tOf = (messages: Record<string, string>): TFunction => (key, params) => translate(messages, key, params);

describe('a stored profile value as the reviewer reads it', () => {
  it('shows choices, tags, the city and partner conditions with the register form labels', async () => {
    const cat = (await loadCore()).catalogues();
    const t = tOf(ja);
    expect(showValue(cat, t, 'gender', 'FEMALE')).toBe(ja['choice.gender.FEMALE']);
    expect(showValue(cat, t, 'incomeRange', 'INCOME_100_150')).toBe(ja['choice.incomeRange.INCOME_100_150']);
    expect(showValue(cat, t, 'hobbyTagIds', [301, 305])).toBe(`${ja['tag.hobby.reading']}, ${ja['tag.hobby.travel']}`);
    expect(showValue(cat, t, 'city', 'TPE')).toBe(ja['city.taipei_city']);
    const zt = tOf(zh);
    expect(showValue(cat, zt, 'valueItem', [{ type: 'AGE', from: 28, to: 0 }, { type: 'EDUCATION', value: 'MASTER' }])).toBe(
      `${zh['condition.AGE']}: 28– ${zh['condition.AGE.unit']}, ${zh['condition.EDUCATION']}: ${zh['choice.education.MASTER']}`,
    );
  });

  it('keeps a value the catalogues do not know, and free text, as it is', async () => {
    const cat = (await loadCore()).catalogues();
    const t = tOf(ja);
    expect(showValue(cat, t, 'gender', 'UNKNOWN')).toBe('UNKNOWN');
    expect(showValue(cat, t, 'hobbyTagIds', [999])).toBe('999');
    expect(showValue(cat, t, 'occupation', 'Engineer')).toBe('Engineer');
    expect(showValue(cat, t, 'petTagIds', [])).toBe('—');
    expect(showValue(null, t, 'gender', 'FEMALE')).toBe('FEMALE');
  });
});
