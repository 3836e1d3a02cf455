import { describe, expect, it } from 'vitest';
import en from '@/features/review/locales/en.json';
import zh from '@/features/review/locales/zh-TW.json';
import ja from '@/features/review/locales/ja.json';
import appEn from '@/lib/i18n/locales/en.json';

/** The console's messages travel with its chunk, so a member's first render does not carry them. */
describe('review console messages', () => {
  it('zh-TW, en and ja have the same keys, none empty, none overriding an app message', () => {
    const keys = Object.keys(en).sort();
    expect(keys.length).toBeGreaterThan(30);
    for (const [name, messages] of Object.entries({ en, 'zh-TW': zh, ja } as Record<string, Record<string, string>>)) {
      expect(Object.keys(messages).sort(), name).toEqual(keys);
      for (const k of keys) expect(messages[k]!.trim(), `${name}:${k}`).not.toBe('');
    }
    for (const k of keys) expect(k in appEn, k).toBe(false);
  });
});
