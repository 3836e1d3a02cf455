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

  it('a newest page after a gap replaces what is shown, with its hasMore; own unsent messages stay', () => {
    let s = chatReducer(EMPTY_CHAT, { type: 'page', page: page([msg(1), msg(2), msg(3)], false), older: false });
    s = chatReducer(s, { type: 'sending', clientMessageId: 'pending-001', text: 'on its way', now: 5 });
    s = chatReducer(s, { type: 'sending', clientMessageId: 'failed-0001', text: 'lost', now: 6 });
    s = chatReducer(s, { type: 'failed', clientMessageId: 'failed-0001' });
    // The stream was down while 40 arrived (4..43): the newest page holds 14..43 and says more lie before.
    const newest = Array.from({ length: 30 }, (_, i) => msg(14 + i));
    s = chatReducer(s, { type: 'page', page: page(newest, true, 2), older: false });
    expect(ids(s)).toEqual([...newest.map((m) => m.messageId), null, null]);
    expect(s.hasMore).toBe(true);
    expect(oldestId(s)).toBe(14);
    expect(s.entries.slice(-2).map((e) => [e.clientMessageId, e.delivery])).toEqual([['pending-001', 'sending'], ['failed-0001', 'failed']]);
    expect(s.theirReadUpTo).toBe(2);
    // "Load earlier" then pages back from 14 and fills the gap.
    s = chatReducer(s, { type: 'page', page: page(Array.from({ length: 13 }, (_, i) => msg(1 + i)), false), older: true });
    expect(ids(s).filter((id) => id !== null)).toEqual(Array.from({ length: 43 }, (_, i) => i + 1));
    expect(s.hasMore).toBe(false);
  });

  it('a newest page that overlaps what is shown merges into it without doubles or losing what is older', () => {
    let s = chatReducer(EMPTY_CHAT, { type: 'page', page: page([msg(10), msg(11), msg(12)], true), older: false });
    s = chatReducer(s, { type: 'page', page: page([msg(8), msg(9)], false), older: true });
    s = chatReducer(s, { type: 'sending', clientMessageId: 'pending-002', text: 'x', now: 1 });
    s = chatReducer(s, { type: 'page', page: page([msg(11), msg(12), msg(13), msg(14)], true), older: false });
    expect(ids(s)).toEqual([8, 9, 10, 11, 12, 13, 14, null]);
    // What the older pages said stands: nothing before 8.
    expect(s.hasMore).toBe(false);
    // A newest page with only what is shown, or nothing, changes nothing.
    expect(chatReducer(s, { type: 'page', page: page([msg(13), msg(14)], true), older: false }).entries).toEqual(s.entries);
    expect(chatReducer(s, { type: 'page', page: page([], false), older: false }).entries).toEqual(s.entries);
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
