/// <reference types="vite/client" />
declare const __BUILD_ID__: string;

/** A locale's catalogue, split for the first screen (vite.config.ts `localeParts`). */
declare module 'virtual:locale/*' {
  const messages: Record<string, string>;
  export default messages;
}

/** core/data/locales.json (vite.config.ts `localeParts`): the languages and how a tag picks one. */
declare module 'virtual:locale-table' {
  const table: {
    locales: ('zh-TW' | 'en' | 'ja')[];
    fallback: 'zh-TW' | 'en' | 'ja';
    primaryLanguages: Record<string, 'zh-TW' | 'en' | 'ja'>;
  };
  export default table;
}
