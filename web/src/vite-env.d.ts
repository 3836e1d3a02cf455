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

/** What /register's first step shows of the core, asked of the wasm package at build time
 *  (vite.config.ts `coreFirstStep`). */
declare module 'virtual:core-first-step' {
  import type { FirstStepFacts } from '@/lib/wasm/types';
  const facts: FirstStepFacts;
  export default facts;
}

/** The core's limits for the screens that draw them without loading the core, asked of the wasm
 *  package at build time (vite.config.ts `coreRules`): each field's `{min, max}` by its wire name
 *  (those the app reads are declared here), and how long a pass may be taken back. */
declare module 'virtual:core-rules' {
  import type { Catalogues } from '@/lib/wasm/types';
  type Limit = Catalogues['limits'][string];
  export const likeComment: Limit;
  export const reportText: Limit;
  export const passUndoSecs: Catalogues['passUndoSecs'];
}
