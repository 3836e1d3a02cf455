import { beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { englishScreens, renderScreen } from '@/test/render';
import { ApiError } from '@/lib/api-client';
import { setNavigator } from '@/lib/navigation';
import { matchmakingApi } from '@/features/matchmaking/api/matchmaking-api';
import { RemovalNoticeCard } from '@/features/matchmaking/components/removal-notice';

beforeAll(async () => {
  await englishScreens();
});

describe('RemovalNoticeCard', () => {
  it('names the member they knew, says what to do and where to get help, and nothing of the decision', () => {
    renderScreen(<RemovalNoticeCard notice={{ matchId: 7, nickname: 'Kai', createdAt: 1_764_000_000 }} onDismissed={() => {}} />);
    const card = screen.getByTestId('removal-notice');
    expect(screen.getByRole('region', { name: 'Safety notice' })).toBe(card);
    expect(screen.getByTestId('removal-notice-what').textContent).toBe('Kai, whom you matched with recently, was removed from Kizuna for breaking the rules.');
    expect(card.textContent).toContain('send nothing');
    expect(screen.getByTestId('removal-notice-help').textContent).toContain('165');
    expect(screen.getByTestId('removal-notice-help').textContent).toContain('#9110');
    expect(screen.getByTestId('removal-notice-tell-us').textContent).toContain('official LINE account');
    expect(card.textContent).not.toMatch(/scam|harass|fake|reason/i);
  });

  it('names nobody once that member left Kizuna', () => {
    renderScreen(<RemovalNoticeCard notice={{ matchId: 8, nickname: null, createdAt: 1_764_000_000 }} onDismissed={() => {}} />);
    expect(screen.getByTestId('removal-notice-what').textContent).toBe('Someone you matched with recently was removed from Kizuna for breaking the rules.');
  });

  it('opens the safety help to report', async () => {
    const went: string[] = [];
    setNavigator(async (to) => void went.push(to));
    renderScreen(<RemovalNoticeCard notice={{ matchId: 7, nickname: 'Kai', createdAt: 1 }} onDismissed={() => {}} />);
    await userEvent.click(screen.getByTestId('removal-notice-report'));
    expect(went).toEqual(['/help?topic=safety']);
  });

  it('"Got it" is sent to the server before the notice goes; a failure keeps it', async () => {
    const dismiss = vi.spyOn(matchmakingApi, 'dismissRemovalNotice').mockRejectedValueOnce(new ApiError('E503', 'down', 503)).mockResolvedValueOnce(undefined as never);
    const gone = vi.fn();
    renderScreen(<RemovalNoticeCard notice={{ matchId: 7, nickname: 'Kai', createdAt: 1 }} onDismissed={gone} />);
    await userEvent.click(screen.getByTestId('removal-notice-dismiss'));
    await waitFor(() => expect(screen.getByTestId('removal-notice-dismiss')).toHaveProperty('disabled', false));
    expect(gone).not.toHaveBeenCalled();
    await userEvent.click(screen.getByTestId('removal-notice-dismiss'));
    await waitFor(() => expect(gone).toHaveBeenCalledWith(7));
    expect(dismiss).toHaveBeenCalledTimes(2);
    expect(dismiss.mock.calls[0]![0]).toBe(7);
    dismiss.mockRestore();
  });
});
