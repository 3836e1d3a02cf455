import { beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { extendMessages } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { englishScreens, renderScreen } from '@/test/render';
import { reviewApi, type AppealItem } from '@/features/review/api/review-api';
import { AppealQueue } from '@/features/review/components/appeal-queue';

const item: AppealItem = {
  appealId: 5,
  profileId: 2,
  nickname: 'Kai',
  text: 'Someone used my phone.',
  submittedAt: 1_764_000_000,
  waitedSecs: 2 * 3600,
  reasons: ['SCAM'],
  suspensionNote: null,
  suspendedAt: 1_763_990_000,
};

describe('appeals in the console', () => {
  beforeAll(async () => {
    await englishScreens();
    await extendMessages({
      'zh-TW': () => import('@/features/review/locales/zh-TW.json'),
      en: () => import('@/features/review/locales/en.json'),
      ja: () => import('@/features/review/locales/ja.json'),
    });
  });

  it('shows the member, their words, the reasons and how long it waited, and reinstates with a note', async () => {
    const appeals = vi
      .spyOn(reviewApi, 'appeals')
      .mockResolvedValueOnce({ items: [item], now: 1_764_007_200 })
      .mockResolvedValue({ items: [], now: 1_764_007_300 });
    const decide = vi.spyOn(reviewApi, 'decideAppeal').mockResolvedValue({ appealId: 5, status: 'REINSTATED', decidedAt: 1_764_007_300 });
    const onOpenProfile = vi.fn();
    const onDecided = vi.fn();
    const codes = { reject: [], suspend: [{ code: 'SCAM', key: 'review.suspend.SCAM' }], report: [], distanceBands: [] };
    renderScreen(<AppealQueue codes={codes as never} onOpenProfile={onOpenProfile} onDecided={onDecided} />);
    await waitFor(() => expect(screen.getByTestId('appeal-text').textContent).toBe('Someone used my phone.'));
    expect(screen.getByTestId('appeal-waited').textContent).toContain('2');
    expect(screen.getByTestId('appeal-reasons').textContent).not.toBe('');
    await userEvent.click(screen.getByTestId('appeal-open-profile'));
    expect(onOpenProfile).toHaveBeenCalledWith(2);
    await userEvent.type(screen.getByLabelText('Note to the member (optional)'), 'Welcome back');
    await userEvent.click(screen.getByTestId('appeal-reinstate'));
    expect(decide).toHaveBeenCalledWith(5, { outcome: 'REINSTATED', note: 'Welcome back' });
    await waitFor(() => expect(screen.getByTestId('appeals-empty')).toBeTruthy());
    expect(appeals).toHaveBeenCalledTimes(2);
    expect(onDecided).toHaveBeenCalled();
  });

  it('says so when another reviewer answered first, and changes nothing on the screen', async () => {
    vi.spyOn(reviewApi, 'appeals').mockResolvedValue({ items: [item], now: 1_764_007_200 });
    vi.spyOn(reviewApi, 'decideAppeal').mockRejectedValue(new ApiError('E005', 'the appeal is settled already', 409));
    renderScreen(<AppealQueue codes={null} onOpenProfile={vi.fn()} onDecided={vi.fn()} />);
    await waitFor(() => expect(screen.getByTestId('appeal-uphold')).toBeTruthy());
    await userEvent.click(screen.getByTestId('appeal-uphold'));
    await waitFor(() => expect(screen.getByTestId('appeal-error').textContent).toContain('answered already'));
    expect(screen.getAllByTestId('appeal-item')).toHaveLength(1);
  });
});
