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

const loaders: Record<Locale, () => Promise<{ default: Messages }>> = {
  'zh-TW': () => import('./locales/zh-TW.json'),
  en: () => import('./locales/en.json'),
  ja: () => import('./locales/ja.json'),
};

export const i18nStore = createStore<{ locale: Locale; messages: Messages }>({
  locale: 'en',
  messages: {},
});

export type MessageLoaders = Record<Locale, () => Promise<{ default: Messages }>>;

/** Messages of lazily loaded parts (the review console): loaded with their chunk, not on a member's
 *  first render, and again whenever the locale changes. */
const extensions: MessageLoaders[] = [];
/** The locale whose app messages are in the store (extensions alone do not count). */
let loadedLocale: Locale | null = null;

export async function setLocale(locale: Locale): Promise<void> {
  if (loadedLocale === locale && i18nStore.get().locale === locale) return;
  const parts = await Promise.all([loaders[locale](), ...extensions.map((e) => e[locale]())]);
  i18nStore.set({ locale, messages: Object.assign({}, ...parts.map((p) => p.default)) as Messages });
  loadedLocale = locale;
  document.documentElement.lang = locale;
}

export async function extendMessages(more: MessageLoaders): Promise<void> {
  extensions.push(more);
  const { locale } = i18nStore.get();
  const { default: messages } = await more[locale]();
  const now = i18nStore.get();
  if (now.locale === locale) i18nStore.set({ locale, messages: { ...now.messages, ...messages } });
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
