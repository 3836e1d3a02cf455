import type { Entry } from '@/features/matchmaking/lib/chat-state';

/** A conversation as the page lays it out: a separator at the start of each local day, then that
 *  day's messages (each bubble then carries only its time). */
export type ChatRow = { kind: 'day'; key: string; label: string } | { kind: 'message'; entry: Entry };

/** The local calendar day of a Unix time, as `YYYY-MM-DD` (a key, never shown). */
export function localDay(secs: number): string {
  const d = new Date(secs * 1000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Rows with a day separator before the first message of each day; `label` names a day in the
 *  member's language ("Today", "Yesterday", a date). */
export function chatRows(entries: readonly Entry[], label: (secs: number) => string): ChatRow[] {
  const rows: ChatRow[] = [];
  let day = '';
  for (const entry of entries) {
    const key = localDay(entry.sentAt);
    if (key !== day) {
      day = key;
      rows.push({ kind: 'day', key, label: label(entry.sentAt) });
    }
    rows.push({ kind: 'message', entry });
  }
  return rows;
}

/** "Today", "Yesterday", or the date in the member's language (with the year only when it is not
 *  this year's). */
export function dayLabel(secs: number, now: Date, locale: string | undefined, words: { today: string; yesterday: string }): string {
  const day = localDay(secs);
  if (day === localDay(now.getTime() / 1000)) return words.today;
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  if (day === localDay(yesterday.getTime() / 1000)) return words.yesterday;
  const date = new Date(secs * 1000);
  const sameYear = date.getFullYear() === now.getFullYear();
  return new Intl.DateTimeFormat(locale, sameYear ? { month: 'long', day: 'numeric', weekday: 'short' } : { dateStyle: 'medium' }).format(date);
}
