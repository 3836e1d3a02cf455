import { readFileSync } from 'node:fs';
import { setShownSearch } from '@/lib/navigation';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { englishScreens, renderScreen } from '@/test/render';
import { loadSafety } from '@/lib/wasm/safety';
import { chatApi, type ChatMessage } from '@/features/matchmaking/api/chat-api';
import { matchesQuery } from '@/lib/shared-queries';
import ChatPage from '@/features/matchmaking/components/chat-page';
import { conversationOf } from '@/features/matchmaking/hooks/use-send-check';
import type { Entry } from '@/features/matchmaking/lib/chat-state';

type Matches = Awaited<ReturnType<typeof matchesQuery.load>>;
const NOW = Math.floor(Date.now() / 1000);
const DAY = 86_400;

const message = (id: number, mine: boolean): ChatMessage => ({ messageId: id, clientMessageId: `client-${id}-xx`, text: `line ${id}`, sentAt: NOW - 100 + id, mine });
/** `mine` and `theirs` stored messages, alternating. */
const history = (mine: number, theirs: number) =>
  Array.from({ length: mine + theirs }, (_, i) => message(i + 1, i % 2 === 0 ? i / 2 < mine : (i - 1) / 2 >= theirs));

// jsdom has no modal dialogs: just enough of one for the page to open and close it.
const realShowModal = HTMLDialogElement.prototype.showModal;
const realClose = HTMLDialogElement.prototype.close;
beforeAll(async () => {
  // The real rule: the chat's wasm module, given its bytes (the browser fetches them).
  // (Vitest runs in web/.)
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

async function openChat(matchedAt: number, messages: ChatMessage[]) {
  vi.spyOn(chatApi, 'messages').mockResolvedValue({ messages, hasMore: false });
  vi.spyOn(chatApi, 'read').mockResolvedValue(undefined);
  vi.spyOn(chatApi, 'events').mockImplementation(() => ({ onopen: null, addEventListener: () => {}, close: () => {} }) as unknown as EventSource);
  vi.spyOn(matchesQuery, 'load').mockResolvedValue([{ matchId: 1, matchedAt, unread: 0, isNew: false, member: { memberId: 11, nickname: 'Kai', photoNameList: [] } }] as unknown as Matches);
  const send = vi.spyOn(chatApi, 'send').mockImplementation(async (_m, clientMessageId, text) => ({ messageId: 999, clientMessageId, text, sentAt: NOW, mine: true }));
  window.history.pushState(null, "", "/chat?match=1");
  act(() => setShownSearch('?match=1'));
  renderScreen(<ChatPage />);
  await screen.findByTestId('chat-input');
  await loadSafety();
  // The page has asked for the match list (its age) and the module is there.
  await waitFor(() => expect(screen.getByTestId('chat-title').textContent).toContain('Kai'));
  return send;
}

/** Puts `text` in the input as a paste (typed key by key, the long lines with 50 messages on
 *  screen took over Vitest's 5 s beside a build) and sends it. */
async function type(text: string) {
  const user = userEvent.setup();
  const input = screen.getByTestId('chat-input');
  await user.clear(input);
  await user.paste(text);
  await user.click(screen.getByTestId('chat-send'));
  return user;
}

describe('the sender’s safety sheet', () => {
  beforeAll(englishScreens);

  it('reads the conversation as the rule needs it: the match’s age and the stored messages of each side', () => {
    const entries = [
      { mine: true, messageId: 1 },
      { mine: false, messageId: 2 },
      { mine: false, messageId: 3 },
      { mine: true, messageId: null },
    ] as Entry[];
    expect(conversationOf({ matchedAt: NOW - 3 * DAY }, entries, NOW)).toEqual({ matchAgeSecs: 3 * DAY, sentBySender: 1, sentByOther: 2 });
    // The match list not loaded yet: as young as can be.
    expect(conversationOf(null, [], NOW)).toEqual({ matchAgeSecs: 0, sentBySender: 0, sentByOther: 0 });
  });

  it('holds contact details in a young match; Edit keeps the text and gives the input its focus back', async () => {
    const send = await openChat(NOW - DAY, history(2, 2));
    await type('Add me on LINE: kevin0815');
    const sheet = await screen.findByRole('dialog', { name: 'Before you send this' });
    expect(sheet.getAttribute('aria-describedby')).toBe('send-check-reasons');
    expect(screen.getByTestId('send-check-text').textContent).toBe('Add me on LINE: kevin0815');
    expect(screen.getByTestId('send-check-OFF_PLATFORM').textContent).toBe('Members usually share their LINE after meeting; asking to move early is a common scam sign.');
    expect(screen.queryByTestId('send-check-MONEY')).toBeNull();
    expect(send).not.toHaveBeenCalled();

    await userEvent.click(screen.getByTestId('send-check-edit'));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect((screen.getByTestId('chat-input') as HTMLTextAreaElement).value).toBe('Add me on LINE: kevin0815');
    expect(document.activeElement).toBe(screen.getByTestId('chat-input'));
    expect(send).not.toHaveBeenCalled();
  });

  it('sends a held message on Send anyway, once, and empties the input', async () => {
    const send = await openChat(NOW - DAY, history(1, 1));
    await type('我手機 0912-345-678');
    await screen.findByRole('dialog');
    await userEvent.click(screen.getByTestId('send-check-send'));
    await waitFor(() => expect(send).toHaveBeenCalledTimes(1));
    expect(send.mock.calls[0]![2]).toBe('我手機 0912-345-678');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect((screen.getByTestId('chat-input') as HTMLTextAreaElement).value).toBe('');
  });

  it('in an established match lets contact details go but still holds money talk', async () => {
    const send = await openChat(NOW - 30 * DAY, history(25, 25));
    await type('my LINE is kevin0815');
    await waitFor(() => expect(send).toHaveBeenCalledTimes(1));
    expect(screen.queryByRole('dialog')).toBeNull();

    await type('USDTを買ってこのウォレットアドレスに送って');
    const sheet = await screen.findByRole('dialog');
    expect(sheet.textContent).toContain('Nobody on Kizuna ever needs you to send or invest money.');
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('lets an ordinary message go without asking', async () => {
    const send = await openChat(NOW - DAY, []);
    await type('Meet at the Taipei 101 entrance at 7:30?');
    await waitFor(() => expect(send).toHaveBeenCalledTimes(1));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
