import { describe, expect, it } from 'vitest';
import type { ReportItem } from '@/features/review/api/review-api';
import { consoleParams, conversationOf, memberName, oldestFirst, reasonLabels, reportTime, suggestedReason, suspensionProblem } from '@/features/review/lib/reports';

const item = (over: Partial<ReportItem> = {}): ReportItem => ({
  reportId: 7,
  reporter: { profileId: 1, nickname: 'Mei' },
  target: { profileId: 2, nickname: 'Kai' },
  targetStatus: 'APPROVED',
  targetVersion: 3,
  reasons: ['SCAM_OR_MONEY', 'SPAM'],
  suggestedSuspension: ['SCAM', 'SPAM'],
  text: 'Asked me for money.',
  createdAt: 1_764_000_000,
  conversation: [],
  ...over,
});

const report = [
  { code: 'SCAM_OR_MONEY', key: 'report.reason.SCAM_OR_MONEY', fields: [] },
  { code: 'SPAM', key: 'report.reason.SPAM', fields: [] },
];
const suspend = [
  { code: 'SPAM', key: 'review.suspend.SPAM', fields: [] },
  { code: 'OTHER', key: 'review.suspend.OTHER', fields: [] },
];

describe('report helpers', () => {
  it('translate reasons through the catalogue keys, the code when a label or entry is missing', () => {
    const labels: Record<string, string> = { 'report.reason.SCAM_OR_MONEY': 'Scam or asking for money' };
    const t = (k: string) => labels[k] ?? `!${k}`;
    const has = (k: string) => k in labels;
    expect(reasonLabels(t, has, report, ['SCAM_OR_MONEY', 'SPAM', 'NEW_ONE'])).toEqual(['Scam or asking for money', 'SPAM', 'NEW_ONE']);
    expect(reasonLabels(t, has, undefined, ['SCAM_OR_MONEY'])).toEqual(['SCAM_OR_MONEY']);
  });

  it('write the time in the reviewer’s language', () => {
    const at = Date.UTC(2026, 10, 23, 9, 30) / 1000;
    expect(reportTime(at, 'en')).toMatch(/Nov 23, 2026/);
    expect(reportTime(at, 'ja')).toMatch(/2026\/11\/2[34]/);
    expect(reportTime(at, 'zh-TW')).toMatch(/2026年11月2[34]日/);
  });

  it('offer the first suggested suspension the catalogue knows, none otherwise', () => {
    expect(suggestedReason(item(), suspend)).toBe('SPAM');
    expect(suggestedReason(item({ suggestedSuspension: ['SCAM'] }), suspend)).toBe('');
    expect(suggestedReason(item(), undefined)).toBe('');
  });

  it('need a reason, and a note with OTHER', () => {
    expect(suspensionProblem('', 'x')).toBe('reason');
    expect(suspensionProblem('OTHER', '  ')).toBe('note');
    expect(suspensionProblem('OTHER', 'see the chat')).toBeNull();
    expect(suspensionProblem('SPAM', '')).toBeNull();
  });

  it('show the conversation oldest first', () => {
    expect(conversationOf(item({ conversation: [] }))).toEqual([]);
    const lines = conversationOf(item({ conversation: [
      { from: 'reported', text: 'send money', sentAt: 20 },
      { from: 'reporter', text: 'hi', sentAt: 10 },
    ] }));
    expect(lines.map((l) => l.text)).toEqual(['hi', 'send money']);
  });

  it('order oldest first and name members without a nickname by number', () => {
    const ids = oldestFirst([item({ reportId: 3, createdAt: 5 }), item({ reportId: 1, createdAt: 9 }), item({ reportId: 2, createdAt: 5 })]).map((r) => r.reportId);
    expect(ids).toEqual([2, 3, 1]);
    expect(memberName({ profileId: 4 })).toBe('#4');
    expect(memberName({ profileId: 4, nickname: 'Ren' })).toBe('Ren');
  });

  it('read where the console opens from the address', () => {
    expect(consoleParams('')).toEqual({ tab: 'profiles', profile: null });
    expect(consoleParams('?tab=reports')).toEqual({ tab: 'reports', profile: null });
    expect(consoleParams('?tab=appeals')).toEqual({ tab: 'appeals', profile: null });
    expect(consoleParams('?tab=other').tab).toBe('profiles');
    expect(consoleParams('?profile=12')).toEqual({ tab: 'profiles', profile: 12 });
    for (const bad of ['?profile=0', '?profile=-1', '?profile=1e3', '?profile=abc', '?tab=other']) expect(consoleParams(bad).profile, bad).toBeNull();
  });
});
