import { describe, expect, it } from 'vitest';
import en from '@/features/review/locales/en.json';
import appEn from '@/lib/i18n/locales/en.json';

/** The console's messages travel with its chunk, so a member's first render does not carry them.
 *  (That zh-TW, en and ja have the same keys is checked for every locales/ directory in
 *  src/lib/i18n/locale-files.test.ts.) */
describe('review console messages', () => {
  it('are there, none overriding an app message', () => {
    const keys = Object.keys(en);
    expect(keys.length).toBeGreaterThan(30);
    for (const k of keys) expect(k in appEn, k).toBe(false);
  });
});
