import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { yourTurnLimit } from 'virtual:core-rules';
import { englishScreens, renderScreen } from '@/test/render';
import { extendMessages } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { matchesQuery } from '@/lib/shared-queries';
import { setNavigator } from '@/lib/navigation';
import { matchmakingApi, type MatchItem } from '@/features/matchmaking/api/matchmaking-api';
import { YourTurnSheet, isYourTurn } from '@/features/matchmaking/components/your-turn-sheet';

// jsdom has no modal dialogs: just enough of one for the sheet to open and close.
const realShowModal = HTMLDialogElement.prototype.showModal;
const realClose = HTMLDialogElement.prototype.close;
afterAll(() => {
  HTMLDialogElement.prototype.showModal = realShowModal;
  HTMLDialogElement.prototype.close = realClose;
});

beforeAll(async () => {
  HTMLDialogElement.prototype.showModal = function (this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  HTMLDialogElement.prototype.close = function (this: HTMLDialogElement) {
    this.removeAttribute('open');
    this.dispatchEvent(new Event('close'));
  };
  await englishScreens();
  await extendMessages({
    'zh-TW': () => import('@/features/matchmaking/locales/zh-TW.json'),
    en: () => import('@/features/matchmaking/locales/en.json'),
    ja: () => import('@/features/matchmaking/locales/ja.json'),
  });
});

function item(matchId: number, nickname: string, yourTurn: boolean): MatchItem {
  return {
    matchId,
    matchedAt: 1_764_000_000,
    member: { memberId: matchId + 100, nickname, photoNameList: [] } as unknown as MatchItem['member'],
    lastMessage: { text: `hi from ${nickname}`, sentAt: 1_764_000_100, mine: false },
    unread: 1,
    isNew: false,
    yourTurn,
  };
}

const FIVE = ['Kai', 'Leo', 'Ren', 'Sho', 'Tom'].map((n, i) => item(i + 1, n, true));

describe('isYourTurn', () => {
  it('is the server’s held like only: 409 E005 with fields.yourTurn', () => {
    expect(isYourTurn(new ApiError('E005', 'wait', 409, { yourTurn: ['too_many'] }))).toBe(true);
    expect(isYourTurn(new ApiError('E005', 'you passed this introduction', 409))).toBe(false);
    expect(isYourTurn(new ApiError('E002', 'bad', 422, { yourTurn: ['too_many'] }))).toBe(false);
    expect(isYourTurn(new Error('E005'))).toBe(false);
  });
});

describe('YourTurnSheet', () => {
  it('lists only the conversations waiting on the member, each with Reply and End named by who', async () => {
    const get = vi.spyOn(matchesQuery, 'load').mockResolvedValue([...FIVE, item(9, 'Ann', false)] as never);
    renderScreen(<YourTurnSheet open onClose={() => {}} onReady={() => {}} />);
    const rows = await screen.findAllByTestId('your-turn-match');
    expect(rows.map((r) => within(r).getByTestId('your-turn-name').textContent)).toEqual(['Kai', 'Leo', 'Ren', 'Sho', 'Tom']);
    expect(screen.getByRole('dialog', { name: 'Your turn first' })).toBeTruthy();
    expect(screen.getByTestId('your-turn-why').textContent).toBe(
      '5 people are waiting for your reply. Reply to or end some of these conversations, then like someone new.',
    );
    expect(screen.getByRole('button', { name: 'Reply to Kai' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'End the match with Kai' })).toBeTruthy();
    expect(screen.queryByTestId('your-turn-like')).toBeNull();
    get.mockRestore();
  });

  it('Reply opens that conversation and closes the sheet', async () => {
    const get = vi.spyOn(matchesQuery, 'load').mockResolvedValue(FIVE as never);
    const went: string[] = [];
    setNavigator(async (to) => void went.push(to));
    const closed = vi.fn();
    renderScreen(<YourTurnSheet open onClose={closed} onReady={() => {}} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Reply to Leo' }));
    expect(went).toEqual(['/chat?match=2']);
    expect(closed).toHaveBeenCalled();
    get.mockRestore();
  });

  it('End asks on the row first; Keep changes nothing; once fewer than the limit wait it offers the held like', async () => {
    expect(yourTurnLimit).toBe(5);
    let answer = FIVE;
    const get = vi.spyOn(matchesQuery, 'load').mockImplementation(async () => answer as never);
    const unmatch = vi.spyOn(matchmakingApi, 'unmatch').mockImplementation(async () => {
      answer = FIVE.slice(1);
      return undefined as never;
    });
    const ready = vi.fn();
    renderScreen(<YourTurnSheet open onClose={() => {}} onReady={ready} />);
    await userEvent.click(await screen.findByRole('button', { name: 'End the match with Kai' }));
    expect(screen.getByTestId('your-turn-confirm').textContent).toContain('End the match with Kai? Neither of you can write again.');
    await userEvent.click(screen.getByTestId('your-turn-keep'));
    expect(unmatch).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'End the match with Kai' }));
    await userEvent.click(screen.getByTestId('your-turn-end-yes'));
    await waitFor(() => expect(screen.getAllByTestId('your-turn-match')).toHaveLength(4));
    expect(unmatch).toHaveBeenCalledWith(1);
    expect(screen.getByTestId('your-turn-status').textContent).toBe('The match with Kai has ended.');
    expect(screen.getByTestId('your-turn-why').textContent).toBe('Fewer people are waiting on you now: you can send your like.');
    await userEvent.click(screen.getByTestId('your-turn-like'));
    expect(ready).toHaveBeenCalledTimes(1);
    get.mockRestore();
    unmatch.mockRestore();
  });

  it('a failed End keeps the row and says so', async () => {
    const get = vi.spyOn(matchesQuery, 'load').mockResolvedValue(FIVE as never);
    const unmatch = vi.spyOn(matchmakingApi, 'unmatch').mockRejectedValue(new ApiError('E503', 'down', 503));
    renderScreen(<YourTurnSheet open onClose={() => {}} onReady={() => {}} />);
    await userEvent.click(await screen.findByRole('button', { name: 'End the match with Sho' }));
    await userEvent.click(screen.getByTestId('your-turn-end-yes'));
    await waitFor(() => expect(screen.getByTestId('your-turn-status').textContent).not.toBe(''));
    expect(screen.getAllByTestId('your-turn-match')).toHaveLength(5);
    get.mockRestore();
    unmatch.mockRestore();
  });
});
