import type { TFunction } from '@/lib/i18n';
import type { CodeEntry, ConversationLine, ReportItem } from '@/features/review/api/review-api';

/** The report reasons as the reviewer reads them: the core catalogue's translation key for each
 *  code (GET /catalogue/codes), the code itself when the catalogue or its label is missing. */
export function reasonLabels(
  t: (key: string) => string,
  has: (key: string) => boolean,
  catalogue: CodeEntry[] | undefined,
  codes: string[],
): string[] {
  return codes.map((code) => {
    const key = catalogue?.find((c) => c.code === code)?.key;
    return key && has(key) ? t(key) : code;
  });
}

/** A report's time in the reviewer's language and time zone. */
export function reportTime(secs: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(secs * 1000));
}

/** The suspension reason offered first: the first one the report suggests that the suspend
 *  catalogue has, else none (the reviewer picks). */
export function suggestedReason(item: Pick<ReportItem, 'suggestedSuspension'>, suspend: CodeEntry[] | undefined): string {
  return item.suggestedSuspension.find((code) => suspend?.some((c) => c.code === code)) ?? '';
}

/** What stops a suspension before it is sent (kizuna-core checks the same on the server): a reason
 *  is needed, and OTHER needs a note for the member. */
export function suspensionProblem(reason: string, note: string): 'reason' | 'note' | null {
  if (!reason) return 'reason';
  if (reason === 'OTHER' && !note.trim()) return 'note';
  return null;
}

/** The pair's conversation, oldest first. */
export function conversationOf(item: ReportItem): ConversationLine[] {
  return [...item.conversation].sort((a, b) => a.sentAt - b.sentAt);
}

/** Oldest first, as the server answers; kept so when reports are merged or reloaded. */
export function oldestFirst(items: ReportItem[]): ReportItem[] {
  return [...items].sort((a, b) => a.createdAt - b.createdAt || a.reportId - b.reportId);
}

/** A member as the console names them: the nickname, else the profile number. */
export function memberName(member: { nickname?: string | null; profileId: number }): string {
  return member.nickname ? member.nickname : `#${member.profileId}`;
}

export type ConsoleTab = 'profiles' | 'reports' | 'appeals';

/** Where the console opens: `?tab=reports`, `?tab=appeals`, or `?profile=<id>` (a profile on the first tab). */
export function consoleParams(search: string = location.search): { tab: ConsoleTab; profile: number | null } {
  const params = new URLSearchParams(search);
  const raw = params.get('profile') ?? '';
  const profile = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
  const tab = params.get('tab');
  return { tab: tab === 'reports' || tab === 'appeals' ? tab : 'profiles', profile };
}

/** How long something has waited, in the console's words (minutes, hours, then days). */
export function waited(t: TFunction, secs: number): string {
  if (secs < 3600) return t('console.minutes', { n: Math.max(1, Math.floor(secs / 60)) });
  if (secs < 172_800) return t('console.hours', { n: Math.floor(secs / 3600) });
  return t('console.days', { n: Math.floor(secs / 86_400) });
}
