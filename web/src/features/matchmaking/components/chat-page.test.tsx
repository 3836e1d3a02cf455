import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRoot } from 'react-dom/client';
import { act } from 'react';
import { completeLocale, setLocale } from '@/lib/i18n';
import { setLogShipper } from '@/lib/logger';
import { chatApi, type ChatMessage, type MessagePage } from '@/features/matchmaking/api/chat-api';
import { matchmakingApi } from '@/features/matchmaking/api/matchmaking-api';
import ChatPage from '@/features/matchmaking/components/chat-page';

const msg = (id: number, text: string): ChatMessage => ({ messageId: id, clientMessageId: `client-${id}-xx`, text, sentAt: 1_764_000_000 + id, mine: false });
const pages: Record<number, MessagePage> = {
  // A's messages are newer than B's: a leftover A would also keep B's read marker from being sent.
  1: { messages: [msg(20, 'from A one'), msg(21, 'from A two')], hasMore: false },
  2: { messages: [msg(5, 'from B')], hasMore: false },
};

/** The events stream as the page uses it, never opening (jsdom has no EventSource). */
function quietStream() {
  return { onopen: null, addEventListener: () => {}, close: () => {} } as unknown as EventSource;
}

describe('the chat page', () => {
  beforeAll(async () => {
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    await setLocale('en');
    await completeLocale();
    setLogShipper(() => {});
  });
  afterEach(() => {
    document.body.innerHTML = '';
    history.replaceState(null, '', '/');
    vi.restoreAllMocks();
  });

  it('going from one match’s chat to another’s shows only the other’s messages and marks them read', async () => {
    vi.spyOn(chatApi, 'messages').mockImplementation(async (matchId: number) => pages[matchId]!);
    const read = vi.spyOn(chatApi, 'read').mockResolvedValue(undefined);
    vi.spyOn(chatApi, 'events').mockImplementation(quietStream);
    vi.spyOn(matchmakingApi, 'matches').mockResolvedValue([
      { matchId: 1, member: { nickname: 'Kai' } },
      { matchId: 2, member: { nickname: 'Ren' } },
    ] as unknown as Awaited<ReturnType<typeof matchmakingApi.matches>>);
    const host = document.createElement('div');
    document.body.append(host);
    const root = createRoot(host);
    const texts = () => [...host.querySelectorAll('[data-testid="chat-message"] .chat-text')].map((e) => e.textContent);

    history.pushState(null, '', '/chat?match=1');
    await act(async () => root.render(<ChatPage />));
    expect(texts()).toEqual(['from A one', 'from A two']);
    expect(read).toHaveBeenLastCalledWith(1, 21);

    // The shell re-renders the same route (keyed by path) for the new query.
    history.pushState(null, '', '/chat?match=2');
    await act(async () => root.render(<ChatPage />));
    expect(texts()).toEqual(['from B']);
    expect(host.querySelector('[data-testid="chat-title"]')?.textContent).toContain('Ren');
    expect(read).toHaveBeenLastCalledWith(2, 5);
    await act(async () => root.unmount());
  });

  it('the stream’s first open loads the newest page again: a message stored before the server subscribed shows', async () => {
    const stored = [msg(20, 'before the page')];
    vi.spyOn(chatApi, 'messages').mockImplementation(async () => ({ messages: [...stored], hasMore: false }));
    vi.spyOn(chatApi, 'read').mockResolvedValue(undefined);
    const stream = quietStream();
    vi.spyOn(chatApi, 'events').mockReturnValue(stream);
    vi.spyOn(matchmakingApi, 'matches').mockResolvedValue([{ matchId: 1, member: { nickname: 'Kai' } }] as unknown as Awaited<ReturnType<typeof matchmakingApi.matches>>);
    const host = document.createElement('div');
    document.body.append(host);
    const root = createRoot(host);
    history.pushState(null, '', '/chat?match=1');
    await act(async () => root.render(<ChatPage />));
    // Stored after the first GET, before the server subscribed the stream: no event brings it.
    stored.push(msg(21, 'in between'));
    await act(async () => stream.onopen!(new Event('open')));
    expect([...host.querySelectorAll('[data-testid="chat-message"] .chat-text')].map((e) => e.textContent)).toEqual(['before the page', 'in between']);
    await act(async () => root.unmount());
  });
});
