import { extendMessages } from '@/lib/i18n';
import { describeError, logger } from '@/lib/logger';

// The matchmaking screens' own texts (the send check, "Your turn", expired matches) travel with
// their chunks: the app's catalogue, which /register loads too, does not carry them. Importing
// this module asks for them once.
extendMessages({
  'zh-TW': () => import('@/features/matchmaking/locales/zh-TW.json'),
  en: () => import('@/features/matchmaking/locales/en.json'),
  ja: () => import('@/features/matchmaking/locales/ja.json'),
}).catch((err: unknown) => logger.warn(`matchmaking messages did not load: ${describeError(err)}`));
