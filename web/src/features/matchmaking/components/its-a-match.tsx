import { useRef, useState } from 'react';
import { chatMessage } from 'virtual:core-rules';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { getUserInfo } from '@/lib/auth';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { Image } from '@/components/image';
import { chatApi } from '@/features/matchmaking/api/chat-api';
import { Dialog, type FocusTarget } from '@/features/matchmaking/components/dialog';
import { newClientMessageId } from '@/features/matchmaking/lib/chat-state';
import { useSendCheck } from '@/features/matchmaking/hooks/use-send-check';

/** A like that was answered: who, their first photo, and the match (null: the server did not say). */
export type MatchNews = { name: string; photo: string | null; matchId: number | null };

/** The core's `rules::CHAT_MESSAGE`, asked of the wasm package when the app is built. */
const FIRST_MESSAGE_MAX = chatMessage.max;

/** "It's a match!" after a like that was answered: both members' photos and the first message
 *  right there, the focus on it (Hinge and Pairs open on the message too), so that the match
 *  starts a conversation rather than a list. The message goes through the chat's own send (one
 *  client message id, so a retry never doubles it) and the same safety nudge, then the chat
 *  opens. `returnFocus`: where the focus goes once it closes. */
export function ItsAMatch({ match, onClose, returnFocus }: { match: MatchNews | null; onClose: () => void; returnFocus?: FocusTarget }) {
  const t = useT();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // One id per message typed here: pressing Send again after a lost answer is the same message.
  const messageId = useRef<string | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const sendCheck = useSendCheck(null, [], input);
  const mine = getUserInfo()?.profile?.photoNameList[0] ?? null;
  const matchId = match?.matchId ?? null;

  const close = () => {
    setText('');
    setError(null);
    messageId.current = null;
    onClose();
  };
  const go = (path: string) => {
    close();
    void navigate(path);
  };

  const deliver = async (message: string) => {
    if (matchId === null) return;
    messageId.current ??= newClientMessageId();
    setSending(true);
    setError(null);
    try {
      await chatApi.send(matchId, messageId.current, message);
      go(`/chat?match=${matchId}`);
    } catch (err) {
      logger.warn(`first message failed: ${describeError(err)}`);
      if (err instanceof ApiError && err.status === 422) messageId.current = null;
      setError(err instanceof ApiError && err.status === 429 ? t('match.chat.tooFast') : err instanceof ApiError && err.status === 422 ? t('match.chat.invalid') : t('match.chat.notSent'));
    } finally {
      setSending(false);
    }
  };

  const trimmed = text.trim();
  return (
    <Dialog
      open={match !== null}
      title={t('match.itsAMatch')}
      onClose={close}
      testId="its-a-match"
      initialFocus={matchId !== null ? '[data-testid="first-message"]' : undefined}
      describedBy="its-a-match-text"
      returnFocus={returnFocus}
    >
      <div className="match-photos" aria-hidden="true">
        {mine ? <Image src={mine} alt="" width={112} height={140} loading="eager" /> : <span className="match-photo-none" />}
        {match?.photo ? <Image src={match.photo} alt="" width={112} height={140} loading="eager" /> : <span className="match-photo-none" />}
      </div>
      <p id="its-a-match-text">{t('match.itsAMatchText', { name: match?.name ?? '' })}</p>
      {matchId !== null ? (
        <form
          className="match-message"
          onSubmit={(e) => {
            e.preventDefault();
            if (!trimmed || sending) return;
            if (!sendCheck.hold(trimmed, () => void deliver(trimmed))) void deliver(trimmed);
          }}
        >
          <label htmlFor="first-message">{t('match.firstMessage', { name: match?.name ?? '' })}</label>
          <textarea
            id="first-message"
            ref={input}
            data-testid="first-message"
            rows={3}
            value={text}
            maxLength={FIRST_MESSAGE_MAX}
            placeholder={t('match.firstMessageHint')}
            onChange={(e) => {
              setText(e.target.value);
              messageId.current = null;
            }}
            aria-describedby={error ? 'first-message-error' : undefined}
          />
          {error ? (
            <p id="first-message-error" className="field-error" role="alert" data-testid="first-message-error">{error}</p>
          ) : null}
          <div className="mm-dialog-actions">
            <button type="button" className="btn" data-testid="see-matches" onClick={() => go('/matches')}>{t('match.later')}</button>
            <button type="submit" className="btn btn-primary" data-testid="say-hello" disabled={!trimmed || sending}>
              {sending ? t('common.processing') : t('match.sendFirst')}
            </button>
          </div>
        </form>
      ) : (
        <div className="mm-dialog-actions">
          <button type="button" className="btn btn-primary" data-testid="see-matches" onClick={() => go('/matches')}>{t('match.seeMatches')}</button>
        </div>
      )}
      {sendCheck.sheet}
    </Dialog>
  );
}
