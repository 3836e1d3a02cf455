import { taipeiUtcOffsetSecs } from 'virtual:core-rules';

/** When the next daily introductions come, from the server's `KIZUNA_INTRODUCTIONS_AT` (`HH:MM`,
 *  Asia/Taipei, kizuna-core's `rules::TAIPEI_UTC_OFFSET_SECS` all year), as a moment the member's
 *  own clock and language show. */
const TAIPEI_OFFSET_MS = taipeiUtcOffsetSecs * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The next moment (Unix ms) the Taipei clock reads `at`; null for anything but `HH:MM`. */
export function nextIntroductionsAt(at: string | null | undefined, now: number): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(at ?? '');
  if (!m) return null;
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  const taipeiMidnight = Math.floor((now + TAIPEI_OFFSET_MS) / DAY_MS) * DAY_MS - TAIPEI_OFFSET_MS;
  const today = taipeiMidnight + minutes * 60_000;
  return today > now ? today : today + DAY_MS;
}

/** "Thu 07:00" in the member's time zone and language (`timeZone` for tests). */
export function formatNextIntroductions(at: number, locale: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, { weekday: 'short', hour: 'numeric', minute: '2-digit', timeZone }).format(new Date(at));
}
