import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { BottomNav } from '@/components/bottom-nav';
import { matchmakingApi, type MatchItem } from '@/features/matchmaking/api/matchmaking-api';
import { MemberSummary } from '@/features/matchmaking/components/member-summary';
import { Dialog } from '@/features/matchmaking/components/dialog';
import { LoadStatus } from '@/features/matchmaking/components/load-status';
import { useCatalogues } from '@/features/matchmaking/components/use-catalogues';
import { useLoad } from '@/features/matchmaking/components/use-load';
import '@/features/matchmaking/components/matchmaking.css';

/** /matches: the caller's active matches, newest first, each with its profile, the last message
 *  and the unread count, a link to its chat, and Unmatch. */
export default function MatchesPage() {
  const t = useT();
  const cat = useCatalogues();
  const [state, reload, set] = useLoad(matchmakingApi.matches, 'matches');
  const [ending, setEnding] = useState<MatchItem | null>(null);
  const [busy, setBusy] = useState(false);
  const dateFormat = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { dateStyle: 'medium' });

  const unmatch = async (m: MatchItem) => {
    setBusy(true);
    try {
      await matchmakingApi.unmatch(m.matchId);
      if (state.kind === 'ok') set(state.value.filter((x) => x.matchId !== m.matchId));
      toast.success(t('match.unmatched', { name: m.member.nickname }));
      setEnding(null);
    } catch (err) {
      logger.warn(`unmatch failed: ${describeError(err)}`);
      toast.error(t('match.loadFailed'));
      reload();
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="page mm-page with-bottom-nav" aria-labelledby="matches-title">
      <h1 id="matches-title">{t('match.matches.title')}</h1>
      {state.kind !== 'ok' ? (
        <LoadStatus state={state} onRetry={reload} />
      ) : state.value.length === 0 ? (
        <p className="card muted" data-testid="matches-empty">{t('match.matches.empty')}</p>
      ) : (
        <ul className="mm-list" data-testid="matches">
          {state.value.map((m) => (
            <li key={m.matchId} className="card mm-card" data-testid="match" data-match-id={m.matchId} data-member-id={m.member.memberId}>
              <MemberSummary member={m.member} cat={cat} photoWidth={72} />
              <p className="muted">{t('match.matchedOn', { date: dateFormat.format(new Date(m.matchedAt * 1000)) })}</p>
              <p className="mm-last" data-testid="match-last-message">
                {m.unread > 0 ? (
                  <span className="mm-unread" data-testid="match-unread" aria-label={t('match.chat.unread', { n: m.unread })}>{m.unread}</span>
                ) : null}{' '}
                {m.lastMessage
                  ? m.lastMessage.mine
                    ? t('match.chat.you', { text: m.lastMessage.text })
                    : m.lastMessage.text
                  : <span className="muted">{t('match.chat.noMessages')}</span>}
              </p>
              <div className="mm-actions">
                <a
                  className="btn btn-small btn-primary"
                  href={`/chat?match=${m.matchId}`}
                  data-testid="open-chat"
                  onClick={(e) => {
                    e.preventDefault();
                    void navigate(`/chat?match=${m.matchId}`);
                  }}
                >
                  {t('match.chat.open')}
                </a>
                <a
                  className="btn btn-small"
                  href={`/member?id=${m.member.memberId}`}
                  data-testid="view-profile"
                  onClick={(e) => {
                    e.preventDefault();
                    void navigate(`/member?id=${m.member.memberId}`);
                  }}
                >
                  {t('match.view')}
                </a>
                <button type="button" className="btn btn-small btn-danger" data-testid="unmatch" onClick={() => setEnding(m)}>
                  {t('match.unmatch')}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <Dialog open={ending !== null} title={t('match.unmatch')} onClose={() => setEnding(null)} testId="unmatch-dialog">
        <p>{t('match.unmatchConfirm', { name: ending?.member.nickname ?? '' })}</p>
        <div className="mm-dialog-actions">
          <button type="button" className="btn" onClick={() => setEnding(null)}>{t('match.cancel')}</button>
          <button type="button" className="btn btn-primary" data-testid="unmatch-confirm" disabled={busy} onClick={() => ending && void unmatch(ending)}>
            {t('match.unmatch')}
          </button>
        </div>
      </Dialog>
      <BottomNav current="matches" />
    </section>
  );
}
