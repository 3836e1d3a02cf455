import type { ChatMessage, MessagePage } from '@/features/matchmaking/api/chat-api';

/** The chat page's conversation: what the server stored (in message id order) and the caller's
 *  own messages still on their way (in the order they were written, after the stored ones).
 *  Every path a message can arrive by (the newest page, an older page, the events stream, the
 *  send's own answer, a retry's answer) goes through `merge`, so a message is shown once. */
export type Delivery = 'sent' | 'sending' | 'failed';

export interface Entry {
  /** The client message id: the key of a message from the moment it is written. */
  clientMessageId: string;
  /** null until the server stored it. */
  messageId: number | null;
  text: string;
  sentAt: number;
  mine: boolean;
  delivery: Delivery;
  /** The server's caution for a received message (null: none, and always for one's own). */
  caution?: { kinds: string[] } | null;
}

export interface ChatState {
  entries: Entry[];
  /** Older messages exist on the server. */
  hasMore: boolean;
  /** The newest message id the other member read. */
  theirReadUpTo: number;
  /** The match ended (unmatch, block, report, suspension) or was never the caller's. */
  ended: boolean;
}

export const EMPTY_CHAT: ChatState = { entries: [], hasMore: false, theirReadUpTo: 0, ended: false };

export type ChatAction =
  | { type: 'page'; page: MessagePage; older: boolean }
  | { type: 'incoming'; message: ChatMessage }
  | { type: 'sending'; clientMessageId: string; text: string; now: number }
  | { type: 'sent'; message: ChatMessage }
  | { type: 'failed'; clientMessageId: string }
  | { type: 'drop'; clientMessageId: string }
  | { type: 'read'; upTo: number }
  | { type: 'ended' };

function stored(m: ChatMessage): Entry {
  return { clientMessageId: m.clientMessageId, messageId: m.messageId, text: m.text, sentAt: m.sentAt, mine: m.mine, delivery: 'sent', caution: m.caution ?? null };
}

/** Adds stored messages: one entry per message id (and per own client id), stored ones in id
 *  order, own unsent ones after them in the order written. */
export function merge(entries: readonly Entry[], incoming: readonly ChatMessage[]): Entry[] {
  const byId = new Map<number, Entry>();
  const pending: Entry[] = [];
  const storedOwnIds = new Set<string>();
  for (const m of incoming) {
    byId.set(m.messageId, stored(m));
    if (m.mine) storedOwnIds.add(m.clientMessageId);
  }
  for (const e of entries) {
    if (e.messageId !== null) {
      if (!byId.has(e.messageId)) byId.set(e.messageId, e);
      if (e.mine) storedOwnIds.add(e.clientMessageId);
    }
  }
  for (const e of entries) {
    if (e.messageId === null && !storedOwnIds.has(e.clientMessageId)) pending.push(e);
  }
  const sorted = [...byId.values()].sort((a, b) => (a.messageId ?? 0) - (b.messageId ?? 0));
  return [...sorted, ...pending];
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'page': {
      const theirReadUpTo = Math.max(state.theirReadUpTo, action.page.theirReadUpTo ?? 0);
      const shownNewest = newestId(state);
      const pageOldest = action.page.messages[0]?.messageId;
      // A newest page (loaded whenever the stream opens) that starts after everything shown: more
      // arrived meanwhile than one page holds, so between the two lies a gap that "load earlier"
      // (which pages back from the oldest shown) would never fill. The page replaces what is
      // shown, own unsent messages kept, and older history is paged back from it as usual.
      if (!action.older && shownNewest > 0 && pageOldest !== undefined && pageOldest > shownNewest) {
        const unsent = state.entries.filter((e) => e.messageId === null);
        return { ...state, entries: merge(unsent, action.page.messages), hasMore: action.page.hasMore, theirReadUpTo };
      }
      return {
        ...state,
        entries: merge(state.entries, action.page.messages),
        // Only an older page says whether anything lies before the oldest shown; the newest page
        // says so only when it is the first one (or replaces what was shown, above).
        hasMore: action.older || shownNewest === 0 ? action.page.hasMore : state.hasMore,
        theirReadUpTo,
      };
    }
    case 'incoming':
    case 'sent':
      return { ...state, entries: merge(state.entries, [action.message]) };
    case 'sending': {
      const exists = state.entries.some((e) => e.clientMessageId === action.clientMessageId && e.mine);
      const entries = exists
        ? state.entries.map((e) => (e.clientMessageId === action.clientMessageId && e.messageId === null ? { ...e, delivery: 'sending' as const } : e))
        : [...state.entries, { clientMessageId: action.clientMessageId, messageId: null, text: action.text, sentAt: action.now, mine: true, delivery: 'sending' as const }];
      return { ...state, entries };
    }
    case 'failed':
      return {
        ...state,
        entries: state.entries.map((e) => (e.clientMessageId === action.clientMessageId && e.messageId === null ? { ...e, delivery: 'failed' as const } : e)),
      };
    case 'drop':
      return { ...state, entries: state.entries.filter((e) => e.messageId !== null || e.clientMessageId !== action.clientMessageId) };
    case 'read':
      return { ...state, theirReadUpTo: Math.max(state.theirReadUpTo, action.upTo) };
    case 'ended':
      return { ...state, ended: true };
  }
}

/** The caller's newest stored message the other member has read: "read" is shown under it. */
export function lastReadOfMine(state: ChatState): number | null {
  let found: number | null = null;
  for (const e of state.entries) {
    if (e.mine && e.messageId !== null && e.messageId <= state.theirReadUpTo) found = e.messageId;
  }
  return found;
}

/** The newest stored message id (what the caller has seen once the page shows it). */
export function newestId(state: ChatState): number {
  let newest = 0;
  for (const e of state.entries) if (e.messageId !== null && e.messageId > newest) newest = e.messageId;
  return newest;
}

/** The oldest stored message id (where an older page ends). */
export function oldestId(state: ChatState): number | null {
  for (const e of state.entries) if (e.messageId !== null) return e.messageId;
  return null;
}

/** A client message id: a UUID (crypto.randomUUID needs a secure context; LINE's in-app browser
 *  and localhost are one, but a fallback from getRandomValues costs nothing). */
export function newClientMessageId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The match id of `?match=…`, or null. */
export function matchIdFrom(search: string): number | null {
  const raw = new URLSearchParams(search).get('match');
  if (!raw || !/^[1-9]\d{0,15}$/.test(raw)) return null;
  return Number(raw);
}
