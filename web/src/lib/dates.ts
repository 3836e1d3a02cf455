/** Dates on screen in the member's language (zh-TW, en, ja), never the wire's ISO text. Callers
 *  use the wrappers in lib/i18n, which default to the current locale. */

/** A calendar date as the API and the form keep it (`YYYY-MM-DD`), e.g. "May 12, 1994" or
 *  "1994年5月12日". Read and written in UTC so the day never shifts with the time zone; text that
 *  is not such a date is returned as it is. */
export function formatDate(iso: string, locale: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) return iso;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date);
}

/** A moment the API gives in Unix seconds, with the time, in the browser's time zone. */
export function formatDateTime(unixSeconds: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(unixSeconds * 1000));
}
