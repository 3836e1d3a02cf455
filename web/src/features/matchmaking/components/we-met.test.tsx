import { beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { englishScreens, renderScreen } from '@/test/render';
import { ApiError } from '@/lib/api-client';
import { matchmakingApi } from '@/features/matchmaking/api/matchmaking-api';
import { WeMetCard } from '@/features/matchmaking/components/we-met';

beforeAll(async () => {
  await englishScreens();
});

const question = { matchId: 7, memberId: 12, nickname: 'Kai' };

describe('WeMetCard', () => {
  it('asks whether they met by nickname and says the answer is private', () => {
    renderScreen(<WeMetCard question={question} />);
    expect(screen.getByRole('region', { name: 'Did you meet Kai?' })).toBe(screen.getByTestId('we-met'));
    expect(screen.getByTestId('we-met-private').textContent).toBe('Only you see your answer: Kai is never told, now or later.');
  });

  it('after a yes asks about seeing them again, focuses that question, and sends both answers once', async () => {
    const send = vi.spyOn(matchmakingApi, 'answerWeMet').mockResolvedValue(undefined as never);
    const answered = vi.fn();
    renderScreen(<WeMetCard question={question} onAnswered={answered} />);
    await userEvent.click(screen.getByTestId('we-met-yes'));
    expect(send).not.toHaveBeenCalled();
    const again = screen.getByRole('heading', { name: 'Would you like to see Kai again?' });
    expect(document.activeElement).toBe(again);
    await userEvent.click(screen.getByTestId('we-met-again-yes'));
    await waitFor(() => expect(screen.getByTestId('we-met-thanks')).toBeTruthy());
    expect(send).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledWith(7, { met: true, seeAgain: true });
    expect(answered).toHaveBeenCalledWith(7);
    send.mockRestore();
  });

  it('a "not yet" is sent without a second question', async () => {
    const send = vi.spyOn(matchmakingApi, 'answerWeMet').mockResolvedValue(undefined as never);
    renderScreen(<WeMetCard question={question} />);
    await userEvent.click(screen.getByTestId('we-met-no'));
    await waitFor(() => expect(screen.getByTestId('we-met-thanks')).toBeTruthy());
    expect(send).toHaveBeenCalledWith(7, { met: false });
    expect(screen.queryByTestId('we-met-again-yes')).toBeNull();
    send.mockRestore();
  });

  it('a failed answer keeps the question to try again', async () => {
    const send = vi
      .spyOn(matchmakingApi, 'answerWeMet')
      .mockRejectedValueOnce(new ApiError('E503', 'down', 503))
      .mockResolvedValueOnce(undefined as never);
    renderScreen(<WeMetCard question={question} />);
    await userEvent.click(screen.getByTestId('we-met-yes'));
    await userEvent.click(screen.getByTestId('we-met-again-no'));
    await waitFor(() => expect(screen.getByTestId('we-met-again-no')).toHaveProperty('disabled', false));
    expect(screen.queryByTestId('we-met-thanks')).toBeNull();
    await userEvent.click(screen.getByTestId('we-met-again-no'));
    await waitFor(() => expect(screen.getByTestId('we-met-thanks')).toBeTruthy());
    expect(send.mock.calls).toEqual([
      [7, { met: true, seeAgain: false }],
      [7, { met: true, seeAgain: false }],
    ]);
    send.mockRestore();
  });
});
