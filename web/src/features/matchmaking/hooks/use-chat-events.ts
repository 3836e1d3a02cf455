import { useEffect, useEffectEvent } from 'react';
import { chatApi, type ChatMessage, type EndedEvent, type MessageEvent, type ReadEvent } from '@/features/matchmaking/api/chat-api';

/** What the conversation does with the events stream's news of its match. */
export interface ChatEventHandlers {
  /** Load the newest page (again): at once, on the stream's first open, and on `reset`. */
  resync: () => void;
  /** A message of this match arrived (either member's). */
  message: (message: ChatMessage) => void;
  /** The other member read up to this message. */
  read: (upTo: number) => void;
  /** The match ended. */
  ended: () => void;
}

/** The events stream (GET /events) for one match, open while the conversation is. Its first open
 *  loads the newest page again: a message stored between the first load and the server's
 *  subscribe arrives by no event. A reconnect does not: EventSource sends the last event id it saw
 *  and the server replays what was missed, or sends `reset` when it no longer can. The first load
 *  does not wait for the stream (a page without one still works). Events of other matches are
 *  not this conversation's. */
export function useChatEvents(matchId: number | null, handlers: ChatEventHandlers): void {
  const resync = useEffectEvent(() => handlers.resync());
  const message = useEffectEvent((m: ChatMessage) => handlers.message(m));
  const read = useEffectEvent((upTo: number) => handlers.read(upTo));
  const ended = useEffectEvent(() => handlers.ended());
  useEffect(() => {
    if (matchId === null) return;
    resync();
    const source = chatApi.events();
    let opened = false;
    source.onopen = () => {
      if (opened) return;
      opened = true;
      resync();
    };
    const data = <T,>(e: Event) => JSON.parse((e as globalThis.MessageEvent<string>).data) as T;
    source.addEventListener('reset', () => resync());
    source.addEventListener('message', (e) => {
      const event = data<MessageEvent>(e);
      if (event.matchId === matchId) message(event.message);
    });
    source.addEventListener('read', (e) => {
      const event = data<ReadEvent>(e);
      if (event.matchId === matchId) read(event.upTo);
    });
    source.addEventListener('ended', (e) => {
      if (data<EndedEvent>(e).matchId === matchId) ended();
    });
    return () => source.close();
  }, [matchId]);
}
