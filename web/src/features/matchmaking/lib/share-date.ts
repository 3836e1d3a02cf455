import { lineShare } from 'virtual:core-rules';
import { bubbleMessage, liffLink, linkButton, MUTED, text, type FlexMessage } from '@/lib/line-share';

/** "Share my date": the plan a member types in a chat's sheet, checked against kizuna-core's
 *  limits (`datePlace`, `lineShare.datePastSecs` / `dateAheadSecs`), and the Flex bubble that
 *  carries it to one LINE friend. The plan lives in the sheet's state only: nothing of it is sent
 *  to Kizuna's server, stored or logged. */

export interface DatePlan {
  /** What the member typed: a place's name or address. */
  place: string;
  /** The `<input type="datetime-local">` value: the member's local date and time. */
  when: string;
}

export type PlanProblems = {
  place?: 'placeRequired' | 'placeTooLong' | 'placeInvalid';
  when?: 'whenRequired' | 'whenRange';
};

/** `datetime-local`'s value for `date` in the browser's time zone (minutes, no seconds). */
export function localInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The earliest and latest times a plan may name, around `now`. */
export function planRange(now: Date): { min: Date; max: Date } {
  return { min: new Date(now.getTime() - lineShare.datePastSecs * 1000), max: new Date(now.getTime() + lineShare.dateAheadSecs * 1000) };
}

/** The plan's time, null when the value is no date and time. */
export function planTime(when: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(when)) return null;
  const date = new Date(when);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** What is wrong with `plan` at `now`: the place 1 to `lineShare.datePlace.max` characters after trimming,
 *  on one line without control characters; the time a real one, from `datePastSecs` ago (the
 *  member may share once there) to `dateAheadSecs` ahead. The input's minute precision is the
 *  comparison's: a plan for this very minute is never "in the past". */
export function planProblems(plan: DatePlan, now: Date): PlanProblems {
  const problems: PlanProblems = {};
  const place = plan.place.trim();
  // Characters as the core counts them (Unicode scalar values).
  const chars = [...place].length;
  if (chars < lineShare.datePlace.min) problems.place = 'placeRequired';
  else if (chars > lineShare.datePlace.max) problems.place = 'placeTooLong';
  // eslint-disable-next-line no-control-regex
  else if (/[\u0000-\u001f\u007f]/.test(place)) problems.place = 'placeInvalid';
  if (!plan.when) problems.when = 'whenRequired';
  else {
    const time = planTime(plan.when);
    const minute = 60_000;
    const { min, max } = planRange(now);
    if (!time || time.getTime() < Math.floor(min.getTime() / minute) * minute || time.getTime() > max.getTime()) problems.when = 'whenRange';
  }
  return problems;
}

/** The date and time as the member's language writes them, in their time zone. */
export function formatPlanTime(time: Date, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short' }).format(time);
}

/** Kizuna's safety tips (/help?topic=safety) as the LIFF app's permanent link: a friend who taps
 *  it opens them in LINE, member or not (the help is shown to anyone). */
export function safetyLink(liffId: string): string {
  return liffLink(liffId, '/help?topic=safety');
}

type T = (key: string, params?: Record<string, string | number>) => string;

/** The bubble a friend receives, in the sender's language: the match's nickname, where and when,
 *  a line asking them to check in, and the safety tips' link. Decided: no photo of the match (no
 *  image at all), nothing of the sender's or the match's profile beyond the nickname. */
export function dateMessage({ nickname, place, time, locale, liffId, t }: { nickname: string; place: string; time: Date; locale: string; liffId: string; t: T }): FlexMessage {
  const name = nickname.trim() || t('match.shareDate.someone');
  const where = place.trim();
  const when = formatPlanTime(time, locale);
  const row = (label: string, value: string) => ({
    type: 'box' as const,
    layout: 'baseline' as const,
    spacing: 'sm',
    contents: [text(label, { size: 'sm', color: MUTED, flex: 2 }), text(value, { size: 'sm', weight: 'bold', flex: 5 })],
  });
  return bubbleMessage(
    t('match.shareDate.alt', { name, place: where, when }),
    [
      text(t('match.shareDate.bubbleTitle'), { size: 'lg', weight: 'bold' }),
      text(t('match.shareDate.bubbleIntro'), { size: 'sm', color: MUTED }),
      row(t('match.shareDate.with'), name),
      row(t('match.shareDate.where'), where),
      row(t('match.shareDate.when'), when),
      text(t('match.shareDate.bubbleNote'), { size: 'sm' }),
    ],
    linkButton(t('match.shareDate.safetyButton'), safetyLink(liffId)),
  );
}
