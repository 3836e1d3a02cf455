import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRoot } from 'react-dom/client';
import { act } from 'react';
import { completeLocale, extendMessages, setLocale } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { setLogShipper } from '@/lib/logger';
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

async function render(item: ReportItem, onChanged = vi.fn(), onOpenProfile = vi.fn()) {
  const host = document.createElement('div');
  document.body.append(host);
  await act(async () => createRoot(host).render(<ReportCard item={item} codes={codes} onChanged={onChanged} onOpenProfile={onOpenProfile} />));
  const q = (id: string) => host.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  const click = (id: string) => act(async () => q(id)!.click());
  return { host, q, click, onChanged, onOpenProfile };
}

describe('a report in the console', () => {
  beforeAll(async () => {
    // React's act() warns unless the environment says it is a test.
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    await setLocale('en');
    await completeLocale();
    await extendMessages({
      'zh-TW': () => import('@/features/review/locales/zh-TW.json'),
      en: () => import('@/features/review/locales/en.json'),
      ja: () => import('@/features/review/locales/ja.json'),
    });
    setLogShipper(() => {});
  });
  afterEach(() => {
    document.body.innerHTML = '';
    vi.restoreAllMocks();
  });

  it('shows who, the translated reasons, the words and that the pair exchanged no messages', async () => {
    const { q, click, onOpenProfile } = await render(report());
    expect(q('report-target')!.textContent).toBe('Kai');
    expect(q('report-reporter')!.textContent).toBe('reported by Mei');
    expect(q('report-reasons')!.textContent).toBe('Scam or asking for money');
    expect(q('report-text')!.textContent).toBe('Asked me to lend him money.');
    expect(q('report-conversation')!.textContent).toContain('They exchanged no messages.');
    await click('report-open-profile');
    expect(onOpenProfile).toHaveBeenCalledWith(2);
  });

  it('keeps the report of a reporter who deleted their account without naming them', async () => {
    const { q } = await render(report({ reporter: undefined }));
    expect(q('report-reporter')!.textContent).toBe('reported by a member who has left');
    expect(q('report-target')!.textContent).toBe('Kai');
  });

  it('shows the pair’s conversation, each line named, oldest first', async () => {
    const { q } = await render(report({ conversation: [
      { from: 'reported', text: 'Can you lend me 20,000?', sentAt: 1_764_000_100 },
      { from: 'reporter', text: 'Hi!', sentAt: 1_764_000_050 },
    ] }));
    const lines = [...q('report-conversation')!.querySelectorAll('li')].map((li) => [li.dataset.from, li.querySelector('strong')!.textContent, li.querySelector('p')!.textContent]);
    expect(lines).toEqual([['reporter', 'Mei', 'Hi!'], ['reported', 'Kai', 'Can you lend me 20,000?']]);
  });

  it('dismisses only after the confirmation', async () => {
    const dismiss = vi.spyOn(reviewApi, 'dismiss').mockResolvedValue({ reportId: 9 });
    const { q, click, onChanged } = await render(report());
    await click('report-dismiss');
    expect(dismiss).not.toHaveBeenCalled();
    expect(q('dismiss-box')!.textContent).toMatch(/Kai stays as they are/);
    await click('dismiss-confirm');
    expect(dismiss).toHaveBeenCalledWith(9);
    expect(onChanged).toHaveBeenCalledTimes(1);
  });

  it('suspends through the SUSPEND decision with the suggested reason and the reported member’s version', async () => {
    const decide = vi.spyOn(reviewApi, 'decide').mockResolvedValue({ profileId: 2, status: 'SUSPENDED', version: 5, decidedAt: 1 });
    const { click, onChanged } = await render(report());
    await click('report-suspend');
    await click('suspend-confirm');
    expect(decide).toHaveBeenCalledWith(2, { action: 'SUSPEND', reasons: ['SCAM'], note: undefined, version: 4 });
    expect(onChanged).toHaveBeenCalledTimes(1);
  });

  it('asks for a note with OTHER before sending anything', async () => {
    const decide = vi.spyOn(reviewApi, 'decide');
    const { host, q, click } = await render(report());
    await click('report-suspend');
    await act(async () => host.querySelector<HTMLInputElement>('input[value="OTHER"]')!.click());
    await click('suspend-confirm');
    expect(decide).not.toHaveBeenCalled();
    expect(q('report-error')!.textContent).toBe('The reason Other needs a note to the member.');
  });

  it('shows a 409 plainly and changes nothing', async () => {
    vi.spyOn(reviewApi, 'decide').mockRejectedValue(new ApiError('E005', 'another reviewer holds this profile until 1764000900', 409));
    const { q, click, onChanged } = await render(report());
    await click('report-suspend');
    await click('suspend-confirm');
    expect(q('report-conflict')!.textContent).toMatch(/^Not saved \(409\): Kai's profile changed or another reviewer holds it\..*another reviewer holds this profile/);
    expect(onChanged).not.toHaveBeenCalled();
  });

  it('offers no suspension for a member who is not APPROVED now', async () => {
    const { q } = await render(report({ targetStatus: 'SUSPENDED' }));
    expect(q('report-suspend')).toBeNull();
    expect(q('report-dismiss')).not.toBeNull();
  });
});
