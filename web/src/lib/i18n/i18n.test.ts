import { describe, expect, it } from 'vitest';
import en from '@/lib/i18n/locales/en.json';
import zh from '@/lib/i18n/locales/zh-TW.json';
import ja from '@/lib/i18n/locales/ja.json';
import enShared from '../../../../core/data/texts/en.json';
import zhShared from '../../../../core/data/texts/zh-TW.json';
import jaShared from '../../../../core/data/texts/ja.json';
import localeVectors from '../../../../tests/vectors/locale.json';
import localeTable from 'virtual:locale-table';
import { LOCALES, pickLocale, translate } from '@/lib/i18n';
import { loadCore } from '@/lib/wasm';

/** What each catalogue holds once built: the app's messages and the texts shared with the server. */
const locales: Record<string, Record<string, string>> = {
  en: { ...en, ...enShared },
  'zh-TW': { ...zh, ...zhShared },
  ja: { ...ja, ...jaShared },
};

describe('i18n', () => {
  it('chooses zh-TW, ja or en from the LIFF language, en by default', () => {
    expect(pickLocale('zh-TW')).toBe('zh-TW');
    expect(pickLocale('zh-Hant-TW')).toBe('zh-TW');
    expect(pickLocale('ja-JP')).toBe('ja');
    expect(pickLocale('en-US')).toBe('en');
    expect(pickLocale('th')).toBe('en');
    expect(pickLocale(undefined)).toBe('en');
  });

  it.each(localeVectors.picks)('picks $expect for $language, as kizuna-core does', ({ language, expect: wanted }) => {
    expect(pickLocale(language)).toBe(wanted);
  });

  it('knows the locales of core/data/locales.json', () => {
    expect([...LOCALES]).toEqual(localeTable.locales);
  });

  it('interpolates parameters', () => {
    expect(translate({ a: 'Page not found: {path}' }, 'a', { path: '/x' })).toBe('Page not found: /x');
    expect(translate({}, 'missing.key')).toBe('missing.key');
  });

  it('picks the plural form of the locale', () => {
    const messages = { a: 'You filter on {n, plural, one {# condition} other {# conditions}} near {city}', b: '{n, plural, =0 {none left} other {# left}}' };
    expect(translate(messages, 'a', { n: 1, city: 'Taipei' }, 'en')).toBe('You filter on 1 condition near Taipei');
    expect(translate(messages, 'a', { n: 3, city: 'Taipei' }, 'en')).toBe('You filter on 3 conditions near Taipei');
    expect(translate(messages, 'b', { n: 0 }, 'en')).toBe('none left');
    expect(translate(messages, 'b', { n: 2 }, 'ja')).toBe('2 left');
    // Japanese has one form: a one-branch is never chosen for 1.
    expect(translate({ c: '{n, plural, one {one} other {#件}}' }, 'c', { n: 1 }, 'ja')).toBe('1件');
  });

  it.each(Object.keys(locales))('%s: every plural message has an other form and reads whole', (locale) => {
    const messages = locales[locale]!;
    for (const [key, text] of Object.entries(messages)) {
      if (!text.includes(', plural,')) continue;
      expect(text, key).toMatch(/other\s*\{/);
      for (const n of [0, 1, 2, 5]) expect(translate(messages, key, { n, count: n, photos: n, answers: n }, locale as 'en')).not.toMatch(/plural|\{n,|\}\s*other/);
    }
  });

  // WCAG 2.5.3 (label in name): a button that shows "Pass" and is named for a member says "Pass"
  // in its name too, so that a member who speaks what they see is understood (ja named the Pass
  // button "…さんをスキップ" while it showed "パス").
  it.each(Object.keys(locales))('%s: a button named for a member keeps the word it shows', (locale) => {
    const messages = locales[locale]!;
    for (const [shown, named] of [['match.pass', 'match.passName'], ['match.like', 'match.likeName']] as const) {
      expect(translate(messages, named, { name: 'Kai' })).toContain(messages[shown]);
    }
  });

  it('every core rule code and catalogue key has a translation in every locale', async () => {
    const core = await loadCore();
    const cat = core.catalogues();
    const keys = new Set<string>(core.ruleCodes().map((c) => `rule.${c}`));
    for (const list of Object.values(cat.tags)) for (const tag of list) keys.add(tag.key);
    for (const city of cat.cities) keys.add(city.key);
    for (const list of Object.values(cat.choices)) for (const option of list) keys.add(option.key);
    // Every field the core can report an error for has a label.
    const empty = core.validateDraft(core.emptyDraft(), 'U0123456789abcdef0123456789abcdef', '2026-01-01');
    for (const field of Object.keys(empty)) {
      if (field.startsWith('valueItem.')) keys.add(`condition.${field.split('.')[1]}`);
      else keys.add(`field.${field.split(/[.[]/)[0]}`);
      for (const code of empty[field]!) keys.add(`rule.${code}`);
    }
    expect(cat.employers).toHaveLength(31);
    expect(keys.size).toBeGreaterThan(100);
    for (const [name, messages] of Object.entries(locales)) {
      const missing = [...keys].filter((k) => !(k in messages));
      expect(missing, name).toEqual([]);
    }
  });
});

describe('i18n keys used in the code', () => {
  it('every literal t(...) key exists in the locales', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (name === 'wasm-pkg') continue;
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.tsx?$/.test(name) && !name.endsWith('.test.ts')) files.push(path);
      }
    };
    walk(join(process.cwd(), 'src'));
    // Lazily loaded parts (the review console) keep their messages in their own locales/en.json.
    const known = new Set(Object.keys(en));
    const walkLocales = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walkLocales(path);
        else if (path.endsWith(join('locales', 'en.json'))) for (const k of Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object)) known.add(k);
      }
    };
    walkLocales(join(process.cwd(), 'src', 'features'));
    const used = new Set<string>();
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z0-9_.-]+)'/g)) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(100);
    const missing = [...used].filter((k) => !known.has(k));
    expect(missing).toEqual([]);
  });
});
