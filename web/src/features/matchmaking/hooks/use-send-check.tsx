import { useEffect, useState, type ReactNode, type RefObject } from 'react';
import { describeError, logger } from '@/lib/logger';
import { loadSafety, type Conversation, type SafetyKind, type SafetyModule } from '@/lib/wasm/safety';
import { SendCheckSheet } from '@/features/matchmaking/components/send-check-sheet';
import type { MatchItem } from '@/features/matchmaking/api/matchmaking-api';
import type { Entry } from '@/features/matchmaking/lib/chat-state';

/** The conversation as the safety rule reads it, before the message being sent: the match's age
 *  from the match list (unknown yet: brand new) and the messages each side has on screen. The
 *  page shows the newest page of history, so in a long conversation the counts are a lower bound:
 *  the rule then sees it younger than it is, which errs towards asking. */
export function conversationOf(match: Pick<MatchItem, 'matchedAt'> | null, entries: readonly Entry[], nowSecs: number): Conversation {
  const sent = (mine: boolean) => entries.filter((e) => e.mine === mine && e.messageId !== null).length;
  return {
    matchAgeSecs: match ? Math.max(0, nowSecs - match.matchedAt) : 0,
    sentBySender: sent(true),
    sentByOther: sent(false),
  };
}

/** The sender's nudge: before a message with contact details in a young match, or with
 *  money talk at any time, goes, a sheet says why that is a common scam sign, with Edit and Send
 *  anyway. The rule is kizuna-core's, in the chat's own wasm module, loaded with the chat screen;
 *  until it is there (or if it fails to load) messages go as they are: a nudge, never a block.
 *  `hold(text, send)` is true when the sheet took the message; `send` runs on Send anyway;
 *  `ready`: the rule is loaded (the chat form says so in `data-screening`, which end-to-end tests
 *  wait for: the module's download ends before it is compiled and in use). */
export function useSendCheck(match: MatchItem | null, entries: readonly Entry[], input: RefObject<HTMLTextAreaElement | null>): {
  hold: (text: string, send: () => void) => boolean;
  sheet: ReactNode;
  ready: boolean;
} {
  const [rule, setRule] = useState<SafetyModule | null>(null);
  const [held, setHeld] = useState<{ text: string; kinds: SafetyKind[]; send: () => void } | null>(null);

  useEffect(() => {
    let alive = true;
    loadSafety().then(
      (module) => alive && setRule(module),
      (err: unknown) => logger.warn(`safety module did not load: ${describeError(err)}`),
    );
    return () => {
      alive = false;
    };
  }, []);

  const hold = (text: string, send: () => void) => {
    if (!rule) return false;
    const kinds = rule.screenMessage(text, conversationOf(match, entries, Math.floor(Date.now() / 1000)));
    if (kinds.length === 0) return false;
    setHeld({ text, kinds, send });
    return true;
  };

  // The sheet gives the focus back to the input as it closes (its `input`).
  const close = () => setHeld(null);

  const sheet = (
    <SendCheckSheet
      kinds={held?.kinds ?? null}
      text={held?.text ?? ''}
      input={() => input.current}
      onEdit={close}
      onSend={() => {
        const send = held?.send;
        close();
        send?.();
      }}
    />
  );
  return { hold, sheet, ready: rule !== null };
}
