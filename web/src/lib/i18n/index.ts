import { createStore, useStore } from '@/lib/store';
import { formatDate as formatDateIn, formatDateTime as formatDateTimeIn } from '@/lib/dates';
import localeTable from 'virtual:locale-table';

/** zh-TW, en and ja (core/data/locales.json; a test keeps this list equal to it), chosen from
 *  LIFF's language (docs/design.md "Locales"). */
export const LOCALES = ['zh-TW', 'en', 'ja'] as const;
export type Locale = (typeof LOCALES)[number];
export type Messages = Record<string, string>;

/** The language tag's primary subtag, looked up in core/data/locales.json (as kizuna-core's
 *  `Locale::pick` does; tests/vectors/locale.json checks both), else the fallback. */
export function pickLocale(language: string | null | undefined): Locale {
  const primary = (language ?? '').trim().split(/[-_]/)[0]!.toLowerCase();
  return Object.hasOwn(localeTable.primaryLanguages, primary) ? localeTable.primaryLanguages[primary]! : localeTable.fallback;
}

type Loader = () => Promise<{ default: Messages }>;

/** Each catalogue in two parts: what /register (a new user's first screen) needs, and the messages
 *  of the other screens, fetched once the first part is there. */
const loaders: Record<Locale, { first: Loader; later: Loader }> = {
  'zh-TW': { first: () => import('virtual:locale/zh-TW/first'), later: () => import('virtual:locale/zh-TW/later') },
  en: { first: () => import('virtual:locale/en/first'), later: () => import('virtual:locale/en/later') },
  ja: { first: () => import('virtual:locale/ja/first'), later: () => import('virtual:locale/ja/later') },
};

export const i18nStore = createStore<{ locale: Locale; messages: Messages; complete: boolean }>({
  locale: 'en',
  messages: {},
  complete: false,
});

let completing: Promise<void> | null = null;

export type MessageLoaders = Record<Locale, () => Promise<{ default: Messages }>>;

/** Messages of lazily loaded parts (the review console): loaded with their chunk, not on a member's
 *  first render, and again whenever the locale changes. */
const extensions: MessageLoaders[] = [];
/** The locale whose app messages are in the store (extensions alone do not count). */
let loadedLocale: Locale | null = null;

export async function setLocale(locale: Locale): Promise<void> {
  if (loadedLocale === locale && i18nStore.get().locale === locale) return;
  const parts = await Promise.all([loaders[locale].first(), ...extensions.map((e) => e[locale]())]);
  completing = null;
  i18nStore.set({
    locale,
    messages: Object.assign({}, ...parts.map((p) => p.default)) as Messages,
    complete: false,
  });
  loadedLocale = locale;
  document.documentElement.lang = locale;
}

/** The whole catalogue of the current locale: screens other than /register wait for it. */
export function completeLocale(): Promise<void> {
  const { locale, complete } = i18nStore.get();
  if (complete) return Promise.resolve();
  completing ??= loaders[locale]
    .later()
    .then(({ default: later }) => {
      if (i18nStore.get().locale !== locale) return;
      i18nStore.set((s) => ({ ...s, messages: { ...s.messages, ...later }, complete: true }));
    })
    .catch((err: unknown) => {
      // A failed download (offline) is tried again by the next caller.
      completing = null;
      throw err;
    });
  return completing;
}

export async function extendMessages(more: MessageLoaders): Promise<void> {
  extensions.push(more);
  const { locale } = i18nStore.get();
  const { default: messages } = await more[locale]();
  const now = i18nStore.get();
  if (now.locale === locale) i18nStore.set({ ...now, messages: { ...now.messages, ...messages } });
}

/** `{n, plural, one {# photo} other {# photos}}`: the branch Intl.PluralRules picks for the
 *  locale (`=0`, `=1`… first), `#` standing for the number. zh-TW and ja have one form, so their
 *  messages say `{n}` plainly; English needs the branches. */
const PLURAL = /\{(\w+), plural,((?:\s*(?:=\d+|zero|one|two|few|many|other)\s*\{[^{}]*\})+)\s*\}/g;
const BRANCH = /(=\d+|zero|one|two|few|many|other)\s*\{([^{}]*)\}/g;

function plurals(template: string, params: Record<string, string | number>, locale: Locale): string {
  return template.replace(PLURAL, (whole, name: string, body: string) => {
    const value = params[name];
    if (typeof value !== 'number') return whole;
    const branches = new Map([...body.matchAll(BRANCH)].map((b) => [b[1]!, b[2]!]));
    const chosen = branches.get(`=${value}`) ?? branches.get(new Intl.PluralRules(locale).select(value)) ?? branches.get('other') ?? '';
    return chosen.replace(/#/g, String(value));
  });
}

export function translate(
  messages: Messages,
  key: string,
  params?: Record<string, string | number>,
  locale: Locale = i18nStore.get().locale,
): string {
  const template = messages[key] ?? key;
  if (!params) return template;
  return plurals(template, params, locale).replace(/\{(\w+)\}/g, (m, name: string) =>
    params[name] === undefined ? m : String(params[name]),
  );
}

export function t(key: string, params?: Record<string, string | number>): string {
  return translate(i18nStore.get().messages, key, params);
}

export function hasMessage(key: string): boolean {
  return key in i18nStore.get().messages;
}

export type TFunction = typeof t;

/** Re-renders when the locale changes. */
export function useT(): TFunction {
  const messages = useStore(i18nStore, (s) => s.messages);
  const locale = useStore(i18nStore, (s) => s.locale);
  return (key, params) => translate(messages, key, params, locale);
}

export function useLocale(): Locale {
  return useStore(i18nStore, (s) => s.locale);
}

/** A `YYYY-MM-DD` date in words in the member's language (lib/dates). */
export function formatDate(iso: string, locale: Locale = i18nStore.get().locale): string {
  return formatDateIn(iso, locale);
}

/** Unix seconds as a date and time in the member's language (lib/dates). */
export function formatDateTime(unixSeconds: number, locale: Locale = i18nStore.get().locale): string {
  return formatDateTimeIn(unixSeconds, locale);
}
