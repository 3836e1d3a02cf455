import { api } from '@/lib/api-client';
import { apiBase } from '@/lib/config';
import type { Schemas } from '@/lib/api/types';

/** The chat API (docs/design.md "Chat"): a live match's messages, sending with the client's own
 *  message id (a retry with the same id never doubles a message), the read marker, and the
 *  events stream of all the caller's chats. A match that is not (or no longer) the caller's live
 *  match is 404 E003. */
export type ChatMessage = Schemas['ChatMessage'];
export type MessagePage = Schemas['MessagePage'];
export type MessageEvent = Schemas['MessageEvent'];
export type ReadEvent = Schemas['ReadEvent'];
export type EndedEvent = Schemas['EndedEvent'];

const quiet = { showToast: false } as const;

/** Messages per page: what fills a phone screen about twice. */
export const PAGE_SIZE = 30;

export const chatApi = {
  messages: (matchId: number, before?: number) =>
    api.get('/matches/{matchId}/messages', { ...quiet, path: { matchId }, query: { limit: PAGE_SIZE, before: before || undefined } }),
  send: (matchId: number, clientMessageId: string, text: string) =>
    api.post('/matches/{matchId}/messages', { ...quiet, path: { matchId }, body: { clientMessageId, text } }),
  read: (matchId: number, upTo: number) => api.put('/matches/{matchId}/read', { ...quiet, path: { matchId }, body: { upTo } }),
  /** The events stream; authenticated by the session cookie, which EventSource sends. */
  events: () => new EventSource(`${apiBase()}/chat/events`),
};
