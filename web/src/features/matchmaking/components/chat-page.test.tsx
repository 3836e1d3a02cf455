import { setShownSearch } from '@/lib/navigation';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import { englishScreens, renderScreen } from '@/test/render';
import { chatApi, type ChatMessage, type MessagePage } from '@/features/matchmaking/api/chat-api';
import { matchmakingApi } from '@/features/matchmaking/api/matchmaking-api';
import ChatPage from '@/features/matchmaking/components/chat-page';

const msg = (id: number, text: string): ChatMessage => ({ messageId: id, clientMessageId: `client-${id}-xx`, text, sentAt: 1_764_000_000 + id, mine: false });
const pages: Record<number, MessagePage> = {
  // A's messages are newer than B's: a leftover A would also keep B's read marker from being sent.
  1: { messages: [msg(20, 'from A one'), msg(21, 'from A two')], hasMore: false },
  2: { messages: [msg(5, 'from B')], hasMore: false },
};
type Matches = Awaited<ReturnType<typeof matchmakingApi.matches>>;

/** The events stream as the page uses it, never opening (jsdom has no EventSource). */
function quietStream() {
  return { onopen: null, addEventListener: () => {}, close: () => {} } as unknown as EventSource;
}

const shownTexts = () => screen.queryAllByTestId('chat-message').map((e) => e.querySelector('.chat-text')!.textContent);

/** A stream whose events the test sends by name. */
function drivenStream() {
  const listeners = new Map<string, (e: Event) => void>();
  const stream = {
    onopen: null as ((e: Event) => void) | null,
    addEventListener: (name: string, listener: (e: Event) => void) => listeners.set(name, listener),
    close: () => {},
  };
  const send = (name: string, data = '') => listeners.get(name)?.(new globalThis.MessageEvent(name, { data }));
  return { stream, source: stream as unknown as EventSource, send };
}


/** What the shell does when a navigation is let through: the browser's URL and the shown query. */
function show(url: string) {
  history.pushState(null, '', url);
  act(() => setShownSearch(new URL(url, location.origin).search));
}

describe('the chat page', () => {
  beforeAll(englishScreens);

  it('going from one match’s chat to another’s shows only the other’s messages and marks them read', async () => {
    vi.spyOn(chatApi, 'messages').mockImplementation(async (matchId: number) => pages[matchId]!);
    const read = vi.spyOn(chatApi, 'read').mockResolvedValue(undefined);
    vi.spyOn(chatApi, 'events').mockImplementation(quietStream);
    vi.spyOn(matchmakingApi, 'matches').mockResolvedValue([
      { matchId: 1, member: { memberId: 11, nickname: 'Kai', photoNameList: [] } },
      { matchId: 2, member: { memberId: 12, nickname: 'Ren', photoNameList: [] } },
    ] as unknown as Matches);

    show('/chat?match=1');
    const { rerender } = renderScreen(<ChatPage />);
    await waitFor(() => expect(shownTexts()).toEqual(['from A one', 'from A two']));
    await waitFor(() => expect(read).toHaveBeenLastCalledWith(1, 21));

    // The shell re-renders the same route (keyed by path) for the new query.
    show('/chat?match=2');
    rerender(<ChatPage />);
    await waitFor(() => expect(shownTexts()).toEqual(['from B']));
    await waitFor(() => expect(screen.getByTestId('chat-title').textContent).toContain('Ren'));
    await waitFor(() => expect(read).toHaveBeenLastCalledWith(2, 5));
  });

  it('the stream’s first open loads the newest page again: a message stored before the server subscribed shows', async () => {
    const stored = [msg(20, 'before the page')];
    vi.spyOn(chatApi, 'messages').mockImplementation(async () => ({ messages: [...stored], hasMore: false }));
    vi.spyOn(chatApi, 'read').mockResolvedValue(undefined);
    const stream = quietStream();
    vi.spyOn(chatApi, 'events').mockReturnValue(stream);
    vi.spyOn(matchmakingApi, 'matches').mockResolvedValue([{ matchId: 1, member: { memberId: 11, nickname: 'Kai', photoNameList: [] } }] as unknown as Matches);
    show('/chat?match=1');
    renderScreen(<ChatPage />);
    await waitFor(() => expect(shownTexts()).toEqual(['before the page']));
    // Stored after the first GET, before the server subscribed the stream: no event brings it.
    stored.push(msg(21, 'in between'));
    await act(async () => stream.onopen!(new Event('open')));
    expect(shownTexts()).toEqual(['before the page', 'in between']);
  });

  it('a reconnect loads nothing again (the server replays what was missed); a reset from the server does', async () => {
    const stored = [msg(20, 'before the page')];
    const messages = vi.spyOn(chatApi, 'messages').mockImplementation(async () => ({ messages: [...stored], hasMore: false }));
    vi.spyOn(chatApi, 'read').mockResolvedValue(undefined);
    const { stream, source, send } = drivenStream();
    vi.spyOn(chatApi, 'events').mockReturnValue(source);
    vi.spyOn(matchmakingApi, 'matches').mockResolvedValue([{ matchId: 1, member: { memberId: 11, nickname: 'Kai', photoNameList: [] } }] as unknown as Matches);
    show('/chat?match=1');
    renderScreen(<ChatPage />);
    await waitFor(() => expect(shownTexts()).toEqual(['before the page']));
    await act(async () => stream.onopen!(new Event('open')));
    expect(messages).toHaveBeenCalledTimes(2);
    // The connection drops and comes back: the replayed event brings the message, no page load.
    await act(async () => stream.onopen!(new Event('open')));
    await act(async () => send('message', JSON.stringify({ matchId: 1, message: msg(21, 'replayed') })));
    expect(messages).toHaveBeenCalledTimes(2);
    expect(shownTexts()).toEqual(['before the page', 'replayed']);
    // The server can no longer replay (too long away): it says so and the page loads the newest.
    stored.push(msg(21, 'replayed'), msg(22, 'while away'));
    await act(async () => send('reset'));
    expect(messages).toHaveBeenCalledTimes(3);
    await waitFor(() => expect(shownTexts()).toEqual(['before the page', 'replayed', 'while away']));
  });
});
