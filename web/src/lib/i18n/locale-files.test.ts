import { describe, expect, it } from 'vitest';
import { LOCALES } from '@/lib/i18n';

/** The locale JSON files are edited by hand (nothing generates them), so this is what keeps the
 *  three languages in step: every `locales/` directory — the app's and each lazily loaded
 *  feature's — has one file per locale, all with exactly the same keys and no empty message. */
const files = import.meta.glob<Record<string, string>>('/src/**/locales/*.json', { eager: true, import: 'default' });

function byDirectory(): Map<string, Map<string, Record<string, string>>> {
  const dirs = new Map<string, Map<string, Record<string, string>>>();
  for (const [path, messages] of Object.entries(files)) {
    const cut = path.lastIndexOf('/');
    const dir = path.slice(0, cut);
    const locale = path.slice(cut + 1, -'.json'.length);
    if (!dirs.has(dir)) dirs.set(dir, new Map());
    dirs.get(dir)!.set(locale, messages);
  }
  return dirs;
}

describe('locale files', () => {
  const dirs = byDirectory();

  it('are found for the app and the review console', () => {
    expect([...dirs.keys()]).toEqual(expect.arrayContaining(['/src/lib/i18n/locales', '/src/features/review/locales']));
  });

  it.each([...dirs.keys()])('%s has one file per locale, all with the same keys and no empty message', (dir) => {
    const byLocale = dirs.get(dir)!;
    expect([...byLocale.keys()].sort()).toEqual([...LOCALES].sort());
    const keys = Object.keys(byLocale.get('en')!).sort();
    expect(keys.length).toBeGreaterThan(0);
    for (const [locale, messages] of byLocale) {
      const own = Object.keys(messages);
      expect({ locale, missing: keys.filter((k) => !(k in messages)), extra: own.filter((k) => !keys.includes(k)) }).toEqual({
        locale,
        missing: [],
        extra: [],
      });
      const empty = own.filter((k) => typeof messages[k] !== 'string' || messages[k]!.trim() === '');
      expect({ locale, empty }).toEqual({ locale, empty: [] });
    }
  });
});
