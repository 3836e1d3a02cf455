/// <reference types="vite/client" />
declare const __BUILD_ID__: string;

/** A locale's catalogue, split for the first screen (vite.config.ts `localeParts`). */
declare module 'virtual:locale/*' {
  const messages: Record<string, string>;
  export default messages;
}
