import { beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { extendMessages } from '@/lib/i18n';
import { englishScreens, renderScreen } from '@/test/render';
import { reviewApi, type FlaggedConversation } from '@/features/review/api/review-api';
import { FlaggedQueue } from '@/features/review/components/flagged-queue';

const item: FlaggedConversation = {
  matchId: 7,
  member: { profileId: 2, nickname: 'Kai' },
  memberStatus: 'APPROVED',
  memberVersion: 3,
  other: { profileId: 1, nickname: 'Mei' },
  cause: 'OFF_PLATFORM_THEN_MONEY',
  createdAt: 1_764_000_000,
  conversation: [
    { from: 'other', text: 'Hi', sentAt: 1_764_000_000, kinds: [] },
    { from: 'member', text: 'Add my LINE kai_1990', sentAt: 1_764_000_010, kinds: ['OFF_PLATFORM'] },
    { from: 'member', text: 'Buy USDT with me', sentAt: 1_764_000_020, kinds: ['MONEY'] },
  ],
};

describe('flagged conversations in the console', () => {
  beforeAll(async () => {
    await englishScreens();
    await extendMessages({
      'zh-TW': () => import('@/features/review/locales/zh-TW.json'),
      en: () => import('@/features/review/locales/en.json'),
      ja: () => import('@/features/review/locales/ja.json'),
    });
  });

  it('shows the member, the cause, how long it waited and the flagged messages marked, and dismisses it', async () => {
    const flagged = vi
      .spyOn(reviewApi, 'flagged')
      .mockResolvedValueOnce({ items: [item], now: 1_764_000_000 + 3 * 3600 })
      .mockResolvedValue({ items: [], now: 1_764_020_000 });
    const dismiss = vi.spyOn(reviewApi, 'dismissFlagged').mockResolvedValue({ matchId: 7 });
    const onOpenProfile = vi.fn();
    renderScreen(<FlaggedQueue onOpenProfile={onOpenProfile} />);
    await waitFor(() => expect(screen.getByTestId('flagged-member').textContent).toBe('Kai'));
    expect(screen.getByTestId('flagged-cause').textContent).toBe('Moved elsewhere, then money');
    expect(screen.getByTestId('flagged-waited').textContent).toContain('3');
    expect(screen.getAllByTestId('flagged-mark').map((m) => m.textContent)).toEqual(['contact details', 'money']);
    await userEvent.click(screen.getByTestId('flagged-open-profile'));
    expect(onOpenProfile).toHaveBeenCalledWith(2);
    await userEvent.click(screen.getByTestId('flagged-dismiss'));
    await userEvent.click(screen.getByTestId('flagged-dismiss-confirm'));
    expect(dismiss).toHaveBeenCalledWith(7);
    await waitFor(() => expect(screen.getByTestId('flagged-empty')).toBeTruthy());
    expect(flagged).toHaveBeenCalledTimes(2);
  });
});
