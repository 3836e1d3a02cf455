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

/** The core's rules for the code that applies them without loading the core, asked at build time
 *  of the rules' own wasm package (vite.config.ts `coreRules`, kizuna-core's `WebRules`): each
 *  field's `{min, max}` by its wire name (those the app reads are declared here), and every rule. */
declare module 'virtual:core-rules' {
  import type { WebRules } from '@/wasm-rules-pkg/kizuna_wasm_rules';
  type Limit = WebRules['limits'][string];
  export const likeComment: Limit;
  export const chatMessage: Limit;
  export const reportText: Limit;
  export const appealText: Limit;
  export const emailCode: Limit;
  export const passUndoSecs: WebRules['passUndoSecs'];
  export const taipeiUtcOffsetSecs: WebRules['taipeiUtcOffsetSecs'];
  export const sessionTtlSecs: WebRules['sessionTtlSecs'];
  export const sessionClearingCodes: WebRules['sessionClearingCodes'];
  export const quietMatchExpiryDays: WebRules['quietMatchExpiryDays'];
  export const yourTurnLimit: WebRules['yourTurnLimit'];
  export const fixedFields: WebRules['fixedFields'];
  export const consoleRules: WebRules['console'];
  export const lineShare: WebRules['lineShare'];
  export const cardPhoto: WebRules['cardPhoto'];
}

/** A lucide icon's drawing, read from lucide-react at build time (vite.config.ts `iconData`). */
declare module 'virtual:icon/*' {
  const icon: { name: string; node: [tag: string, attrs: Record<string, string>][] };
  export default icon;
}
