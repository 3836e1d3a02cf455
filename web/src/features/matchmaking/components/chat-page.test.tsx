import { setShownSearch } from '@/lib/navigation';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import { englishScreens, renderScreen } from '@/test/render';
import { chatApi, type ChatMessage, type MessagePage } from '@/features/matchmaking/api/chat-api';
import { matchesQuery, codesQuery, type CodeCatalogues } from '@/lib/shared-queries';
import ChatPage from '@/features/matchmaking/components/chat-page';

const msg = (id: number, text: string): ChatMessage => ({ messageId: id, clientMessageId: `client-${id}-xx`, text, sentAt: 1_764_000_000 + id, mine: false });
const pages: Record<number, MessagePage> = {
  // A's messages are newer than B's: a leftover A would also keep B's read marker from being sent.
  1: { messages: [msg(20, 'from A one'), msg(21, 'from A two')], hasMore: false },
  2: { messages: [msg(5, 'from B')], hasMore: false },
};
type Matches = Awaited<ReturnType<typeof matchesQuery.load>>;

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
    vi.spyOn(matchesQuery, 'load').mockResolvedValue([
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
    vi.spyOn(matchesQuery, 'load').mockResolvedValue([{ matchId: 1, member: { memberId: 11, nickname: 'Kai', photoNameList: [] } }] as unknown as Matches);
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
    vi.spyOn(matchesQuery, 'load').mockResolvedValue([{ matchId: 1, member: { memberId: 11, nickname: 'Kai', photoNameList: [] } }] as unknown as Matches);
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

  it('a received message the server flagged shows its caution with the hotline and Report or Block; one’s own never does', async () => {
    const flagged: ChatMessage = { ...msg(30, 'Buy USDT with me'), caution: { kinds: ['MONEY'] } };
    const own: ChatMessage = { ...msg(31, 'No thanks'), mine: true, caution: null };
    vi.spyOn(chatApi, 'messages').mockResolvedValue({ messages: [flagged, own], hasMore: false });
    vi.spyOn(chatApi, 'read').mockResolvedValue(undefined);
    vi.spyOn(chatApi, 'events').mockImplementation(quietStream);
    vi.spyOn(codesQuery, 'load').mockResolvedValue({ report: [
      { code: 'SPAM', key: 'report.reason.SPAM', fields: [] },
      { code: 'SCAM_OR_MONEY', key: 'report.reason.SCAM_OR_MONEY', fields: [] },
    ] } as unknown as CodeCatalogues);
    vi.spyOn(matchesQuery, 'load').mockResolvedValue([{ matchId: 3, member: { memberId: 13, nickname: 'Sho', photoNameList: [] } }] as unknown as Matches);

    show('/chat?match=3');
    renderScreen(<ChatPage />);
    await waitFor(() => expect(shownTexts()).toEqual(['Buy USDT with me', 'No thanks']));
    const cautions = screen.getAllByTestId('chat-caution');
    expect(cautions).toHaveLength(1);
    expect(cautions[0]!.dataset.kinds).toBe('MONEY');
    expect(screen.getByTestId('chat-caution-MONEY')).toBeTruthy();
    expect(screen.getByTestId('chat-caution-help')).toBeTruthy();
    act(() => screen.getByTestId('chat-caution-report').click());
    // The scam reason is chosen already; the others are not.
    await waitFor(() => expect((screen.getByDisplayValue('SCAM_OR_MONEY') as HTMLInputElement).checked).toBe(true));
    expect((screen.getByDisplayValue('SPAM') as HTMLInputElement).checked).toBe(false);
  });
});
