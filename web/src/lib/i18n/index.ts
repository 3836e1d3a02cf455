import { createStore, useStore } from '@/lib/store';

/** zh-TW, en and ja, chosen from LIFF's language with en as fallback (docs/design.md "Locales"). */
export const LOCALES = ['zh-TW', 'en', 'ja'] as const;
export type Locale = (typeof LOCALES)[number];
export type Messages = Record<string, string>;

export function pickLocale(language: string | null | undefined): Locale {
  const lang = (language ?? '').toLowerCase();
  if (lang.startsWith('zh')) return 'zh-TW';
  if (lang.startsWith('ja')) return 'ja';
  return 'en';
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

export async function setLocale(locale: Locale): Promise<void> {
  const s = i18nStore.get();
  if (s.locale === locale && Object.keys(s.messages).length) return;
  const { default: messages } = await loaders[locale].first();
  completing = null;
  i18nStore.set({ locale, messages, complete: false });
  document.documentElement.lang = locale;
}

/** The whole catalogue of the current locale: screens other than /register wait for it. */
export function completeLocale(): Promise<void> {
  const { locale, complete } = i18nStore.get();
  if (complete) return Promise.resolve();
  completing ??= loaders[locale].later().then(({ default: later }) => {
    if (i18nStore.get().locale !== locale) return;
    i18nStore.set((s) => ({ messages: { ...s.messages, ...later }, complete: true }));
  });
  return completing;
}

export function translate(
  messages: Messages,
  key: string,
  params?: Record<string, string | number>,
): string {
  const template = messages[key] ?? key;
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (m, name: string) =>
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
  return (key, params) => translate(messages, key, params);
}

export function useLocale(): Locale {
  return useStore(i18nStore, (s) => s.locale);
}
