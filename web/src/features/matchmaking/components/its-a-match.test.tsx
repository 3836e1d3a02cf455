import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { englishScreens, renderScreen } from '@/test/render';
import { loadSafety } from '@/lib/wasm/safety';
import { ApiError } from '@/lib/api-client';
import { setNavigator } from '@/lib/navigation';
import { chatApi, type ChatMessage } from '@/features/matchmaking/api/chat-api';
import { ItsAMatch } from '@/features/matchmaking/components/its-a-match';

// jsdom has no modal dialogs: just enough of one for the sheet to open and close.
const realShowModal = HTMLDialogElement.prototype.showModal;
const realClose = HTMLDialogElement.prototype.close;
beforeAll(async () => {
  await englishScreens();
  // The real safety rule, given its bytes (the browser fetches them); Vitest runs in web/.
  await loadSafety(readFileSync('src/wasm-safety-pkg/kizuna_wasm_safety_bg.wasm'));
  HTMLDialogElement.prototype.showModal = function (this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  HTMLDialogElement.prototype.close = function (this: HTMLDialogElement) {
    this.removeAttribute('open');
    this.dispatchEvent(new Event('close'));
  };
});
afterAll(() => {
  HTMLDialogElement.prototype.showModal = realShowModal;
  HTMLDialogElement.prototype.close = realClose;
});

const news = { name: 'Kai', photo: 'kai-1.jpg', matchId: 7 };
const sent = (text: string, clientMessageId: string): ChatMessage => ({ messageId: 1, clientMessageId, text, sentAt: 1_764_000_000, mine: true });

describe("It's a match", () => {
  it('opens on the first message with both photos, sends it and opens the chat', async () => {
    const went: string[] = [];
    setNavigator(async (to) => void went.push(to));
    const send = vi.spyOn(chatApi, 'send').mockImplementation(async (_m, id, text) => sent(text, id));
    const closed = vi.fn();
    renderScreen(<ItsAMatch match={news} onClose={closed} />);
    const box = screen.getByLabelText('Your first message to Kai');
    expect(document.activeElement).toBe(box);
    expect(screen.getByTestId('its-a-match').querySelectorAll('.match-photos img')).toHaveLength(1);
    // Nothing to send yet: Send waits for words.
    expect(screen.getByTestId('say-hello')).toHaveProperty('disabled', true);
    await userEvent.type(box, '  Hi Kai! Coffee this weekend?  ');
    await userEvent.click(screen.getByTestId('say-hello'));
    await waitFor(() => expect(went).toEqual(['/chat?match=7']));
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]![0]).toBe(7);
    expect(send.mock.calls[0]![2]).toBe('Hi Kai! Coffee this weekend?');
    expect(closed).toHaveBeenCalled();
    send.mockRestore();
  });

  it('a failed send stays in the sheet, says so, and a retry is the same message', async () => {
    setNavigator(async () => {});
    const send = vi
      .spyOn(chatApi, 'send')
      .mockRejectedValueOnce(new ApiError('HTTP503', 'down', 503))
      .mockImplementation(async (_m, id, text) => sent(text, id));
    renderScreen(<ItsAMatch match={news} onClose={() => {}} />);
    await userEvent.type(screen.getByTestId('first-message'), 'Hello');
    await userEvent.click(screen.getByTestId('say-hello'));
    await screen.findByTestId('first-message-error');
    await userEvent.click(screen.getByTestId('say-hello'));
    await waitFor(() => expect(send).toHaveBeenCalledTimes(2));
    // One client message id for both tries: a send that did reach the server is not doubled.
    expect(send.mock.calls[0]![1]).toBe(send.mock.calls[1]![1]);
    send.mockRestore();
  });

  it('contact details in a brand-new match are held by the safety sheet first', async () => {
    setNavigator(async () => {});
    const send = vi.spyOn(chatApi, 'send').mockImplementation(async (_m, id, text) => sent(text, id));
    renderScreen(<ItsAMatch match={news} onClose={() => {}} />);
    await waitFor(() => expect(screen.getByTestId('first-message')).toBeTruthy());
    await userEvent.type(screen.getByTestId('first-message'), 'Add me on LINE: kevin0815');
    await userEvent.click(screen.getByTestId('say-hello'));
    await waitFor(() => expect(screen.getByTestId('send-check-text').textContent).toBe('Add me on LINE: kevin0815'));
    expect(send).not.toHaveBeenCalled();
    send.mockRestore();
  });
});
