import { useState } from 'react';
import { yourTurnLimit } from 'virtual:core-rules';
import { useT } from '@/lib/i18n';
import '@/features/matchmaking/lib/feature-messages';
import { invalidate, queryKeys, useQuery } from '@/lib/query';
import { navigate } from '@/lib/navigation';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { Image } from '@/components/image';
import { matchmakingApi, type MatchItem } from '@/features/matchmaking/api/matchmaking-api';
import { matchmakingQueries } from '@/features/matchmaking/api/queries';
import { Dialog, type FocusTarget } from '@/features/matchmaking/components/dialog';

/** Whether a like was held for the conversations waiting on the member's reply (the server's
 *  409 E005 with `fields.yourTurn`, kizuna-core's `conversation::like_held_for_replies`). */
export function isYourTurn(err: unknown): boolean {
  return err instanceof ApiError && err.code === 'E005' && err.fields?.yourTurn !== undefined;
}

/** "Your turn": a like held because `yourTurnLimit` or more conversations wait on the member's
 *  reply (the other wrote last, over a day ago). Lists them, newest first as /matches does, each
 *  with Reply (its chat) and End (after a confirmation on the row itself); once fewer than the
 *  limit wait it says the like may be sent and offers it (`onReady`). */
export function YourTurnSheet({ open, onClose, onReady, returnFocus }: {
  open: boolean;
  onClose: () => void;
  /** Sends the held like again. */
  onReady: () => void;
  returnFocus?: FocusTarget;
}) {
  const t = useT();
  const [state, reload] = useQuery(open ? matchmakingQueries.matches : null);
  const [ending, setEnding] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [ended, setEnded] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const waiting: MatchItem[] = state.kind === 'ok' ? state.value.filter((m) => m.yourTurn) : [];
  const ready = state.kind === 'ok' && waiting.length < yourTurnLimit;

  const close = () => {
    setEnding(null);
    setEnded(null);
    setFailed(false);
    onClose();
  };

  const end = async (m: MatchItem) => {
    setBusy(true);
    setFailed(false);
    try {
      await matchmakingApi.unmatch(m.matchId);
      setEnding(null);
      setEnded(t('match.unmatched', { name: m.member.nickname }));
      invalidate(queryKeys.matches);
      reload();
    } catch (err) {
      logger.warn(`ending a waiting match failed: ${describeError(err)}`);
      setFailed(true);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} title={t('match.yourTurn.title')} onClose={close} testId="your-turn" initialFocus="title" returnFocus={returnFocus} describedBy="your-turn-why">
      <p id="your-turn-why" data-testid="your-turn-why">
        {ready ? t('match.yourTurn.ready') : t('match.yourTurn.why', { n: Math.max(waiting.length, yourTurnLimit) })}
      </p>
      <p role="status" className="muted" data-testid="your-turn-status">
        {ended ?? ''}
        {failed ? t('match.loadFailed') : ''}
      </p>
      {state.kind === 'ok' && waiting.length > 0 ? (
        <ul className="your-turn-list" data-testid="your-turn-list">
          {waiting.map((m) => {
            const photo = m.member.photoNameList[0];
            return (
              <li key={m.matchId} className="your-turn-row" data-testid="your-turn-match" data-match-id={m.matchId}>
                <span className="your-turn-who">
                  {photo ? <Image src={photo} alt="" width={44} height={44} /> : <span className="mm-no-photo" />}
                  <span className="your-turn-text">
                    <strong data-testid="your-turn-name">{m.member.nickname}</strong>
                    <span className="mm-last">{m.lastMessage?.text ?? ''}</span>
                  </span>
                </span>
                {ending === m.matchId ? (
                  <span className="your-turn-confirm" data-testid="your-turn-confirm">
                    <span>{t('match.yourTurn.endConfirm', { name: m.member.nickname })}</span>
                    <span className="your-turn-actions">
                      <button type="button" className="btn" onClick={() => setEnding(null)} disabled={busy} data-testid="your-turn-keep">
                        {t('match.yourTurn.keep')}
                      </button>
                      <button type="button" className="btn btn-danger" onClick={() => void end(m)} disabled={busy} data-testid="your-turn-end-yes">
                        {busy ? t('common.processing') : t('match.yourTurn.endYes')}
                      </button>
                    </span>
                  </span>
                ) : (
                  <span className="your-turn-actions">
                    <button
                      type="button"
                      className="btn"
                      onClick={() => setEnding(m.matchId)}
                      aria-label={t('match.yourTurn.endName', { name: m.member.nickname })}
                      data-testid="your-turn-end"
                    >
                      {t('match.yourTurn.end')}
                    </button>
                    <button
                      type="button"
                      className="btn btn-primary"
                      onClick={() => {
                        close();
                        void navigate(`/chat?match=${m.matchId}`);
                      }}
                      aria-label={t('match.yourTurn.replyTo', { name: m.member.nickname })}
                      data-testid="your-turn-reply"
                    >
                      {t('match.yourTurn.reply')}
                    </button>
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
      <div className="mm-dialog-actions">
        <button type="button" className="btn" onClick={close} data-testid="your-turn-close">
          {t('match.yourTurn.close')}
        </button>
        {ready ? (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => {
              close();
              onReady();
            }}
            data-testid="your-turn-like"
          >
            {t('match.yourTurn.likeNow')}
          </button>
        ) : null}
      </div>
    </Dialog>
  );
}
