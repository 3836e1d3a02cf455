import { beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { extendMessages } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { englishScreens, renderScreen } from '@/test/render';
import { reviewApi, type CodeCatalogues, type ReportItem } from '@/features/review/api/review-api';
import { ReportCard } from '@/features/review/components/report-queue';

const codes: CodeCatalogues = {
  reject: [],
  distanceBands: [],
  suspend: [
    { code: 'SCAM', key: 'review.suspend.SCAM', fields: [] },
    { code: 'OTHER', key: 'review.suspend.OTHER', fields: [] },
  ],
  report: [{ code: 'SCAM_OR_MONEY', key: 'report.reason.SCAM_OR_MONEY', fields: [] }],
};

const report = (over: Partial<ReportItem> = {}): ReportItem => ({
  reportId: 9,
  reporter: { profileId: 1, nickname: 'Mei' },
  target: { profileId: 2, nickname: 'Kai' },
  targetStatus: 'APPROVED',
  targetVersion: 4,
  reasons: ['SCAM_OR_MONEY'],
  suggestedSuspension: ['SCAM'],
  text: 'Asked me to lend him money.',
  createdAt: 1_764_000_000,
  conversation: [],
  ...over,
});

function show(item: ReportItem, onChanged = vi.fn(), onOpenProfile = vi.fn()) {
  renderScreen(<ReportCard item={item} codes={codes} onChanged={onChanged} onOpenProfile={onOpenProfile} />);
  const text = (id: string) => screen.getByTestId(id).textContent;
  const click = (id: string) => userEvent.click(screen.getByTestId(id));
  return { text, click, onChanged, onOpenProfile };
}

describe('a report in the console', () => {
  beforeAll(async () => {
    await englishScreens();
    await extendMessages({
      'zh-TW': () => import('@/features/review/locales/zh-TW.json'),
      en: () => import('@/features/review/locales/en.json'),
      ja: () => import('@/features/review/locales/ja.json'),
    });
  });

  it('shows who, the translated reasons, the words and that the pair exchanged no messages', async () => {
    const { text, click, onOpenProfile } = show(report());
    expect(text('report-target')).toBe('Kai');
    expect(text('report-reporter')).toBe('reported by Mei');
    expect(text('report-reasons')).toBe('Scam or asking for money');
    expect(text('report-text')).toBe('Asked me to lend him money.');
    expect(text('report-conversation')).toContain('They exchanged no messages.');
    await click('report-open-profile');
    expect(onOpenProfile).toHaveBeenCalledWith(2);
  });

  it('says how long the report has waited, counted to the server’s time of the answer', () => {
    renderScreen(<ReportCard item={report()} codes={codes} onChanged={vi.fn()} onOpenProfile={vi.fn()} now={1_764_000_000 + 5 * 3600 + 59} />);
    expect(screen.getByTestId('report-waited').textContent).toBe('waiting 5 h');
  });

  it('keeps the report of a reporter who deleted their account without naming them', async () => {
    const { text } = show(report({ reporter: undefined }));
    expect(text('report-reporter')).toBe('reported by a member who has left');
    expect(text('report-target')).toBe('Kai');
  });

  it('shows the pair’s conversation, each line named, oldest first', async () => {
    show(report({ conversation: [
      { from: 'reported', text: 'Can you lend me 20,000?', sentAt: 1_764_000_100 },
      { from: 'reporter', text: 'Hi!', sentAt: 1_764_000_050 },
    ] }));
    const lines = within(screen.getByTestId('report-conversation')).getAllByRole('listitem')
      .map((li) => [li.dataset.from, li.querySelector('strong')!.textContent, li.querySelector('p')!.textContent]);
    expect(lines).toEqual([['reporter', 'Mei', 'Hi!'], ['reported', 'Kai', 'Can you lend me 20,000?']]);
  });

  it('dismisses only after the confirmation', async () => {
    const dismiss = vi.spyOn(reviewApi, 'dismiss').mockResolvedValue({ reportId: 9 });
    const { text, click, onChanged } = show(report());
    await click('report-dismiss');
    expect(dismiss).not.toHaveBeenCalled();
    expect(text('dismiss-box')).toMatch(/Kai stays as they are/);
    await click('dismiss-confirm');
    expect(dismiss).toHaveBeenCalledWith(9);
    expect(onChanged).toHaveBeenCalledTimes(1);
  });

  it('suspends through the SUSPEND decision with the suggested reason and the reported member’s version', async () => {
    const decide = vi.spyOn(reviewApi, 'decide').mockResolvedValue({ profileId: 2, status: 'SUSPENDED', version: 5, decidedAt: 1 });
    const { click, onChanged } = show(report());
    await click('report-suspend');
    await click('suspend-confirm');
    expect(decide).toHaveBeenCalledWith(2, { action: 'SUSPEND', reasons: ['SCAM'], note: undefined, version: 4 });
    expect(onChanged).toHaveBeenCalledTimes(1);
  });

  it('asks for a note with OTHER before sending anything', async () => {
    const decide = vi.spyOn(reviewApi, 'decide');
    const { text, click } = show(report());
    await click('report-suspend');
    await userEvent.click(screen.getByRole('radio', { name: /^Other/ }));
    await click('suspend-confirm');
    expect(decide).not.toHaveBeenCalled();
    expect(text('report-error')).toBe('The reason Other needs a note to the member.');
  });

  it('shows a 409 plainly and changes nothing', async () => {
    vi.spyOn(reviewApi, 'decide').mockRejectedValue(new ApiError('E005', 'another reviewer holds this profile until 1764000900', 409));
    const { text, click, onChanged } = show(report());
    await click('report-suspend');
    await click('suspend-confirm');
    expect(text('report-conflict')).toMatch(/^Not saved \(409\): Kai's profile changed or another reviewer holds it\..*another reviewer holds this profile/);
    expect(onChanged).not.toHaveBeenCalled();
  });

  it('offers no suspension for a member who is not APPROVED now', async () => {
    show(report({ targetStatus: 'SUSPENDED' }));
    expect(screen.queryByTestId('report-suspend')).toBeNull();
    expect(screen.getByTestId('report-dismiss')).toBeDefined();
  });
});
