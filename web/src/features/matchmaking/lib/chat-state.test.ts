import { describe, expect, it } from 'vitest';
import type { ChatMessage, MessagePage } from '@/features/matchmaking/api/chat-api';
import { EMPTY_CHAT, chatReducer, lastReadOfMine, matchIdFrom, merge, newClientMessageId, newestId, oldestId, type ChatState } from '@/features/matchmaking/lib/chat-state';

const msg = (id: number, mine = false, text = `m${id}`): ChatMessage => ({ messageId: id, clientMessageId: `client-${mine ? 'me' : 'you'}-${id}`, text, sentAt: 1000 + id, mine });
const page = (messages: ChatMessage[], hasMore = false, theirReadUpTo?: number): MessagePage => ({ messages, hasMore, theirReadUpTo });
const ids = (s: ChatState) => s.entries.map((e) => e.messageId);

describe('chat state', () => {
  it('shows every message once, in id order, whichever way it arrived', () => {
    let s = chatReducer(EMPTY_CHAT, { type: 'page', page: page([msg(5), msg(6), msg(8)], true), older: false });
    expect(s.hasMore).toBe(true);
    // The stream delivers 8 again and 9 new; an older page brings 3..5 (5 already shown).
    s = chatReducer(s, { type: 'incoming', message: msg(8) });
    s = chatReducer(s, { type: 'incoming', message: msg(9) });
    s = chatReducer(s, { type: 'page', page: page([msg(3), msg(4), msg(5)], false), older: true });
    expect(ids(s)).toEqual([3, 4, 5, 6, 8, 9]);
    expect(s.hasMore).toBe(false);
    // A reconnect reloads the newest page: nothing doubles, and hasMore stays what the older pages said.
    s = chatReducer(s, { type: 'page', page: page([msg(6), msg(8), msg(9)], true), older: false });
    expect(ids(s)).toEqual([3, 4, 5, 6, 8, 9]);
    expect(s.hasMore).toBe(false);
    expect(oldestId(s)).toBe(3);
    expect(newestId(s)).toBe(9);
  });

  it('a message being sent is pending, then takes its place among the stored ones once', () => {
    let s = chatReducer(EMPTY_CHAT, { type: 'page', page: page([msg(1)]), older: false });
    s = chatReducer(s, { type: 'sending', clientMessageId: 'abc-123-x', text: 'hello', now: 5 });
    expect(s.entries.at(-1)).toMatchObject({ messageId: null, delivery: 'sending', mine: true, text: 'hello' });
    const stored: ChatMessage = { messageId: 2, clientMessageId: 'abc-123-x', text: 'hello', sentAt: 6, mine: true };
    // The stream may bring it before the POST answers: still one entry.
    s = chatReducer(s, { type: 'incoming', message: stored });
    s = chatReducer(s, { type: 'sent', message: stored });
    expect(s.entries).toHaveLength(2);
    expect(s.entries[1]).toMatchObject({ messageId: 2, delivery: 'sent' });
    // Pending messages stay after stored ones, even when others arrive meanwhile.
    s = chatReducer(s, { type: 'sending', clientMessageId: 'later-1234', text: 'x', now: 7 });
    s = chatReducer(s, { type: 'incoming', message: msg(3) });
    expect(s.entries.map((e) => e.messageId)).toEqual([1, 2, 3, null]);
  });

  it('a failed send keeps its client id for the retry, and a retry does not add a second entry', () => {
    let s = chatReducer(EMPTY_CHAT, { type: 'sending', clientMessageId: 'retry-me-1', text: 'hi', now: 1 });
    s = chatReducer(s, { type: 'failed', clientMessageId: 'retry-me-1' });
    expect(s.entries[0]).toMatchObject({ clientMessageId: 'retry-me-1', delivery: 'failed' });
    s = chatReducer(s, { type: 'sending', clientMessageId: 'retry-me-1', text: 'hi', now: 2 });
    expect(s.entries).toHaveLength(1);
    expect(s.entries[0]!.delivery).toBe('sending');
    // A refused text is taken out (the page puts it back into the box).
    s = chatReducer(s, { type: 'drop', clientMessageId: 'retry-me-1' });
    expect(s.entries).toEqual([]);
  });

  it('"read" goes under my newest message the other has read; the marker never moves back', () => {
    let s = chatReducer(EMPTY_CHAT, { type: 'page', page: page([msg(1, true), msg(2), msg(3, true), msg(4, true)], false, 3), older: false });
    expect(lastReadOfMine(s)).toBe(3);
    s = chatReducer(s, { type: 'read', upTo: 2 });
    expect(s.theirReadUpTo).toBe(3);
    s = chatReducer(s, { type: 'read', upTo: 4 });
    expect(lastReadOfMine(s)).toBe(4);
    expect(lastReadOfMine(chatReducer(EMPTY_CHAT, { type: 'page', page: page([msg(1, true)]), older: false }))).toBeNull();
  });

  it('merges without losing the other member\'s messages that share a client id with mine', () => {
    const a: ChatMessage = { messageId: 1, clientMessageId: 'same-id-1', text: 'mine', sentAt: 1, mine: true };
    const b: ChatMessage = { messageId: 2, clientMessageId: 'same-id-1', text: 'theirs', sentAt: 2, mine: false };
    expect(merge([], [a, b]).map((e) => e.text)).toEqual(['mine', 'theirs']);
  });

  it('ends once and stays ended', () => {
    const s = chatReducer(chatReducer(EMPTY_CHAT, { type: 'ended' }), { type: 'incoming', message: msg(1) });
    expect(s.ended).toBe(true);
  });

  it('reads the match id from the query, nothing else', () => {
    expect(matchIdFrom('?match=12')).toBe(12);
    for (const bad of ['', '?match=', '?match=0', '?match=-1', '?match=1.5', '?match=abc', '?id=3', '?match=99999999999999999']) {
      expect(matchIdFrom(bad), bad).toBeNull();
    }
  });

  it('makes client ids the server accepts (8 to 64 of A-Z a-z 0-9 _ -), different each time', () => {
    const a = newClientMessageId();
    expect(a).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(newClientMessageId()).not.toBe(a);
  });
});
