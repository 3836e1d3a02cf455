import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, useState } from 'react';
import { useT } from '@/lib/i18n';
import { fetchQuery, queryKeys, SessionEndedError, update, useQuery } from '@/lib/query';
import { navigate, useShownSearch } from '@/lib/navigation';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { Spinner } from '@/components/spinner';
import { chatApi, type ChatMessage } from '@/features/matchmaking/api/chat-api';
import { useChatEvents } from '@/features/matchmaking/hooks/use-chat-events';
import type { MatchItem } from '@/features/matchmaking/api/matchmaking-api';
import { matchmakingQueries } from '@/features/matchmaking/api/queries';
import { RemovalNoticeCard } from '@/features/matchmaking/components/removal-notice';
import { ChatHeader } from '@/features/matchmaking/components/chat-header';
import { ChatCaution } from '@/features/matchmaking/components/chat-caution';
import { SafetyDialogs, type SafetyKind as SafetyAction } from '@/features/matchmaking/components/safety-actions';
import { useSendCheck } from '@/features/matchmaking/hooks/use-send-check';
import { chatRows, dayLabel } from '@/features/matchmaking/lib/chat-days';
import {
  EMPTY_CHAT,
  chatReducer,
  lastReadOfMine,
  matchIdFrom,
  newClientMessageId,
  newestId,
  oldestId,
  type Entry,
} from '@/features/matchmaking/lib/chat-state';
import '@/features/matchmaking/components/matchmaking.css';

type Load = 'loading' | 'ready' | 'forbidden' | 'failed';

/** Unix seconds: the time shown under a message until the server's own arrives. */
function nowSecs() {
  return Math.floor(Date.now() / 1000);
}

/** The match list (kept for /matches) shows this conversation's newest message, read. */
function showAsLast(matchId: number, message: ChatMessage) {
  update<MatchItem[]>(queryKeys.matches, (list) =>
    list.map((m) => (m.matchId === matchId ? { ...m, lastMessage: { text: message.text, sentAt: message.sentAt, mine: message.mine }, unread: 0 } : m)),
  );
}

/** 404 from a chat call: the match is not (or no longer) the caller's; 403: not APPROVED. */
function isGone(err: unknown) {
  return err instanceof ApiError && err.status === 404;
}

/** /chat?match=…: one match's conversation. The history loads newest first, older pages on
 *  "load earlier" (or scrolling to the top); messages arrive live through the events stream;
 *  a message being sent shows as pending, a failed one keeps its client id and offers a retry
 *  (the server stores it once however often it is sent); what the page shows is marked read
 *  while the page is visible; an ended match says so and takes no more messages. */
/** A caution's report: the scam reason chosen (kizuna-core `ReportReason::ScamOrMoney`). */
const CAUTION_REPORT = ['SCAM_OR_MONEY'] as const;

export default function ChatPage() {
  // The query of the screen on display (not the browser's, which Back moves before this leaves).
  const matchId = matchIdFrom(useShownSearch());
  // The route is keyed by path, so /chat?match=A to /chat?match=B keeps this component: the key
  // gives each match its own conversation state (messages, read marker sent, draft).
  return <Conversation key={matchId ?? 'none'} matchId={matchId} />;
}

function Conversation({ matchId }: { matchId: number | null }) {
  const t = useT();
  // Without a match id there is nothing to load: the page says the chat is not available.
  const [chat, dispatch] = useReducer(chatReducer, matchId === null ? { ...EMPTY_CHAT, ended: true } : EMPTY_CHAT);
  const [load, setLoad] = useState<Load>(matchId === null ? 'ready' : 'loading');
  const [draft, setDraft] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [cautionAction, setCautionAction] = useState<SafetyAction | null>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const keepBottom = useRef(true);
  const heightBeforeOlder = useRef<number | null>(null);
  // -1: nothing sent yet (the first mark opens the match on the server).
  const readSent = useRef(-1);
  const texts = useRef(new Map<string, string>());

  const loadNewest = useCallback(() => {
    if (matchId === null) return Promise.resolve();
    return fetchQuery(matchmakingQueries.chatPage(matchId)).then(
      (page) => {
        dispatch({ type: 'page', page, older: false });
        setLoad('ready');
      },
      (err: unknown) => {
        if (err instanceof SessionEndedError) return;
        logger.warn(`chat load failed: ${describeError(err)}`);
        if (isGone(err)) {
          dispatch({ type: 'ended' });
          setLoad('ready');
        } else if (err instanceof ApiError && err.status === 403) setLoad('forbidden');
        else setLoad('failed');
      },
    );
  }, [matchId]);

  // The other member, from the match list (an ended match is not in it; its messages answer
  // 404, which ends the page).
  const [matches] = useQuery(matchmakingQueries.matches);
  const match = (matches.kind === 'ok' ? matches.value.find((m) => m.matchId === matchId) : undefined) ?? null;
  const name = match?.member.nickname ?? '';
  // An ended match may have ended with a removal: its notice, until dismissed.
  const [notices, , setNotices] = useQuery(chat.ended && matchId !== null ? matchmakingQueries.removalNotices : null);
  const removal = notices.kind === 'ok' ? notices.value.find((n) => n.matchId === matchId) : undefined;
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const sendCheck = useSendCheck(match, chat.entries, inputRef);

  useChatEvents(matchId, {
    resync: () => void loadNewest(),
    message: (message) => {
      dispatch({ type: 'incoming', message });
      if (matchId !== null) showAsLast(matchId, message);
    },
    read: (upTo) => dispatch({ type: 'read', upTo }),
    ended: () => dispatch({ type: 'ended' }),
  });

  // Read marker: what is on screen counts as read while the page is visible.
  const newest = newestId(chat);
  useEffect(() => {
    if (matchId === null || chat.ended || load !== 'ready') return;
    const mark = () => {
      // The first mark, 0 for an empty conversation too, tells the server it was opened (the
      // match is no longer new); later ones only when something newer is on screen.
      if (document.visibilityState !== 'visible' || (newest <= readSent.current && readSent.current >= 0)) return;
      const upTo = newest;
      readSent.current = upTo;
      chatApi.read(matchId, upTo).then(
        // The match list (kept for /matches and the tab's count) sees it opened and read.
        () => update<MatchItem[]>(queryKeys.matches, (list) => list.map((m) => (m.matchId === matchId ? { ...m, isNew: false, unread: 0 } : m))),
        (err: unknown) => {
          if (isGone(err)) dispatch({ type: 'ended' });
          else readSent.current = -1;
        },
      );
    };
    mark();
    document.addEventListener('visibilitychange', mark);
    return () => document.removeEventListener('visibilitychange', mark);
  }, [matchId, newest, chat.ended, load]);

  // Scrolling: stay at the bottom for new messages (when already there); keep the view still
  // when an older page is put above.
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    if (heightBeforeOlder.current !== null) {
      list.scrollTop += list.scrollHeight - heightBeforeOlder.current;
      heightBeforeOlder.current = null;
    } else if (keepBottom.current) {
      list.scrollTop = list.scrollHeight;
    }
  }, [chat.entries]);

  // The page fills the visual viewport, which shrinks when the keyboard opens: the input stays in
  // view above it and the messages keep their bottom in view.
  const pageRef = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const viewport = window.visualViewport;
    const el = pageRef.current;
    if (!viewport || !el) return;
    const fit = () => {
      el.style.setProperty('--chat-h', `${viewport.height}px`);
      el.style.setProperty('--chat-top', `${viewport.offsetTop}px`);
      const list = listRef.current;
      if (list && keepBottom.current) list.scrollTop = list.scrollHeight;
    };
    fit();
    viewport.addEventListener('resize', fit);
    viewport.addEventListener('scroll', fit);
    return () => {
      viewport.removeEventListener('resize', fit);
      viewport.removeEventListener('scroll', fit);
    };
  }, []);

  const loadOlder = async () => {
    const before = oldestId(chat);
    if (matchId === null || before === null || loadingOlder) return;
    setLoadingOlder(true);
    try {
      const page = await fetchQuery(matchmakingQueries.chatPage(matchId, before));
      heightBeforeOlder.current = listRef.current?.scrollHeight ?? null;
      dispatch({ type: 'page', page, older: true });
    } catch (err) {
      if (err instanceof SessionEndedError) return;
      logger.warn(`chat: older page failed: ${describeError(err)}`);
      if (isGone(err)) dispatch({ type: 'ended' });
      else setNotice(t('match.loadFailed'));
    } finally {
      setLoadingOlder(false);
    }
  };

  const deliver = async (clientMessageId: string, text: string) => {
    if (matchId === null) return;
    dispatch({ type: 'sending', clientMessageId, text, now: nowSecs() });
    keepBottom.current = true;
    try {
      const message = await chatApi.send(matchId, clientMessageId, text);
      dispatch({ type: 'sent', message });
      showAsLast(matchId, message);
      texts.current.delete(clientMessageId);
      setNotice(null);
    } catch (err) {
      logger.warn(`chat: send failed: ${describeError(err)}`);
      dispatch({ type: 'failed', clientMessageId });
      if (isGone(err)) dispatch({ type: 'ended' });
      else if (err instanceof ApiError && err.status === 429) setNotice(t('match.chat.tooFast'));
      else if (err instanceof ApiError && err.status === 422) {
        // Refused for what it says: back into the box to be changed, not retried as it is.
        dispatch({ type: 'drop', clientMessageId });
        setDraft(text);
        setNotice(t('match.chat.invalid'));
      }
      else setNotice(t('match.chat.notSent'));
    }
  };

  const submit = (e: { preventDefault(): void }) => {
    e.preventDefault();
    const text = draft.trim();
    if (!text || chat.ended) return;
    const send = () => {
      const id = newClientMessageId();
      texts.current.set(id, text);
      setDraft('');
      void deliver(id, text);
    };
    // Contact details early, or money talk: the sheet asks first (Edit or Send anyway).
    if (!sendCheck.hold(text, send)) send();
  };

  const retry = (entry: Entry) => {
    // The same client id as the first attempt: a send that did reach the server is not doubled.
    void deliver(entry.clientMessageId, texts.current.get(entry.clientMessageId) ?? entry.text);
  };

  const readUnder = lastReadOfMine(chat);
  const lang = document.documentElement.lang || undefined;
  const timeFormat = new Intl.DateTimeFormat(lang, { timeStyle: 'short' });
  const now = new Date();
  const rows = chatRows(chat.entries, (secs) => dayLabel(secs, now, lang, { today: t('match.chat.today'), yesterday: t('match.chat.yesterday') }));

  return (
    <section className="page mm-page chat-page" aria-labelledby="chat-title" ref={pageRef}>
      <ChatHeader match={match} ended={chat.ended} onEnded={() => dispatch({ type: 'ended' })} />
      {/* Mounted only while open: the header's own dialogs stay the only ones otherwise. */}
      {match && cautionAction ? (
        <SafetyDialogs
          key={cautionAction}
          memberId={match.member.memberId}
          name={match.member.nickname}
          matchId={match.matchId}
          open={cautionAction}
          preset={CAUTION_REPORT}
          onClose={() => setCautionAction(null)}
          onDone={() => {
            setCautionAction(null);
            dispatch({ type: 'ended' });
            void navigate('/matches', { replace: true });
          }}
        />
      ) : null}
      {load === 'loading' ? (
        <Spinner />
      ) : load === 'forbidden' ? (
        <p className="card" data-testid="mm-forbidden">{t('match.onlyApproved')}</p>
      ) : load === 'failed' ? (
        <div className="card" data-testid="mm-failed">
          <p>{t('match.loadFailed')}</p>
          <button type="button" className="btn" onClick={() => void loadNewest()}>{t('common.retry')}</button>
        </div>
      ) : (
        <>
          {chat.hasMore ? (
            <button type="button" className="btn btn-small chat-earlier" data-testid="chat-load-earlier" disabled={loadingOlder} onClick={() => void loadOlder()}>
              {loadingOlder ? t('common.loading') : t('match.chat.loadEarlier')}
            </button>
          ) : null}
          <ol
            className="chat-list"
            ref={listRef}
            data-testid="chat-messages"
            aria-live="polite"
            onScroll={(e) => {
              const el = e.currentTarget;
              keepBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
              if (el.scrollTop < 8 && chat.hasMore) void loadOlder();
            }}
          >
            {chat.entries.length === 0 && !chat.ended ? (
              <li className="muted chat-empty" data-testid="chat-empty">{t('match.chat.empty', { name: name || '…' })}</li>
            ) : null}
            {rows.map((row) => {
              if (row.kind === 'day') {
                return (
                  <li key={`day-${row.key}`} className="chat-day" data-testid="chat-day">
                    <time dateTime={row.key}>{row.label}</time>
                  </li>
                );
              }
              const entry = row.entry;
              return (
                <li
                  key={entry.clientMessageId + (entry.mine ? '' : `:${entry.messageId}`)}
                  className={`chat-message ${entry.mine ? 'mine' : 'theirs'} ${entry.delivery}`}
                  data-testid="chat-message"
                  data-mine={entry.mine}
                  data-delivery={entry.delivery}
                  data-message-id={entry.messageId ?? undefined}
                >
                  {/* Who wrote it, for a screen reader: the side of the screen says it to the eye. */}
                  <span className="sr-only">{entry.mine ? t('match.chat.fromYou') : t('match.chat.from', { name: name || '…' })}</span>
                  <p className="chat-text">{entry.text}</p>
                  {!entry.mine && entry.caution ? (
                    <ChatCaution kinds={entry.caution.kinds} ended={chat.ended} onReport={() => setCautionAction('report')} onBlock={() => setCautionAction('block')} />
                  ) : null}
                  <p className="chat-meta">
                    {entry.delivery === 'sending' ? (
                      <span data-testid="chat-pending">{t('match.chat.sending')}</span>
                    ) : entry.delivery === 'failed' ? (
                      <>
                        <span className="chat-failed">{t('match.chat.notSent')}</span>{' '}
                        {!chat.ended ? (
                          <button type="button" className="btn btn-small" data-testid="chat-retry" onClick={() => retry(entry)}>
                            {t('common.retry')}
                          </button>
                        ) : null}
                      </>
                    ) : (
                      <time data-testid="chat-time" dateTime={new Date(entry.sentAt * 1000).toISOString()}>{timeFormat.format(new Date(entry.sentAt * 1000))}</time>
                    )}
                    {entry.messageId !== null && entry.messageId === readUnder ? (
                      <span className="chat-read" data-testid="chat-read">
                        {' · '}
                        {t('match.chat.read')}
                      </span>
                    ) : null}
                  </p>
                </li>
              );
            })}
          </ol>
          {chat.ended && removal && notices.kind === 'ok' ? (
            <RemovalNoticeCard inChat notice={removal} onDismissed={(id) => setNotices(notices.value.filter((n) => n.matchId !== id))} />
          ) : null}
          {chat.ended ? (
            <div className="card chat-ended" role="status" data-testid="chat-ended">
              <p>{t(chat.entries.length ? 'match.chat.ended' : 'match.chat.endedEmpty')}</p>
              <button type="button" className="btn" onClick={() => void navigate('/matches')}>{t('match.matches.title')}</button>
            </div>
          ) : (
            <form className="chat-form" onSubmit={submit} data-testid="chat-form" data-screening={sendCheck.ready ? 'ready' : 'loading'}>
              {notice ? <p className="chat-notice" role="alert" data-testid="chat-notice">{notice}</p> : null}
              <label className="sr-only" htmlFor="chat-input">{t('match.chat.placeholder')}</label>
              <textarea
                ref={inputRef}
                id="chat-input"
                data-testid="chat-input"
                rows={2}
                value={draft}
                placeholder={t('match.chat.placeholder')}
                onChange={(e) => setDraft(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) submit(e);
                }}
              />
              <button type="submit" className="btn btn-primary" data-testid="chat-send" disabled={!draft.trim()}>
                {t('match.chat.send')}
              </button>
            </form>
          )}
          {sendCheck.sheet}
        </>
      )}
    </section>
  );
}
