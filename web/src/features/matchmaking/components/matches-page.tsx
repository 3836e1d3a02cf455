import { useT } from '@/lib/i18n';
import { useQuery } from '@/lib/query';
import { navigate } from '@/lib/navigation';
import { BottomNav } from '@/components/bottom-nav';
import { Image } from '@/components/image';
import { LoadStatus } from '@/features/matchmaking/components/load-status';
import { matchesBadge } from '@/lib/matches-badge';
import '@/features/matchmaking/components/matchmaking.css';
import { matchmakingQueries } from '@/features/matchmaking/api/queries';
import { RemovalNoticeCard } from '@/features/matchmaking/components/removal-notice';
import { WeMetCard } from '@/features/matchmaking/components/we-met';
import { ExpiredMatches } from '@/features/matchmaking/components/expired-matches';

/** /matches: the caller's active matches, newest first; a row opens the conversation (where the
 *  profile, report, block and unmatch are). A match is marked new until its chat is opened, and
 *  the unread count shows on the row and on the tab. Above them, a notice for each removed match
 *  not dismissed yet, then each "Did you meet?" question the member is due (their answer stays on
 *  the card as thanks until they leave the page); below, the matches that closed because nobody
 *  wrote (by nickname, with a line saying so). */
export default function MatchesPage() {
  const t = useT();
  const [state, reload] = useQuery(matchmakingQueries.matches);
  const [notices, , setNotices] = useQuery(matchmakingQueries.removalNotices);
  const [weMet] = useQuery(matchmakingQueries.weMet);
  const [expired] = useQuery(matchmakingQueries.expiredMatches);
  const lang = document.documentElement.lang || undefined;
  const timeFormat = new Intl.DateTimeFormat(lang, { timeStyle: 'short' });
  const dateFormat = new Intl.DateTimeFormat(lang, { dateStyle: 'short' });
  // Today's activity by its time, older by its date, as messaging apps show it.
  const when = (secs: number) => {
    const at = new Date(secs * 1000);
    return (at.toDateString() === new Date().toDateString() ? timeFormat : dateFormat).format(at);
  };

  return (
    <section className="page mm-page with-bottom-nav" aria-labelledby="matches-title">
      <header className="mm-head">
        <h1 id="matches-title">{t('match.matches.title')}</h1>
      </header>
      {notices.kind === 'ok'
        ? notices.value.map((n) => (
            <RemovalNoticeCard key={n.matchId} notice={n} onDismissed={(id) => setNotices(notices.value.filter((x) => x.matchId !== id))} />
          ))
        : null}
      {weMet.kind === 'ok' ? weMet.value.map((q) => <WeMetCard key={q.matchId} question={q} />) : null}
      {state.kind !== 'ok' ? (
        <LoadStatus state={state} onRetry={reload} />
      ) : state.value.length === 0 ? (
        <div className="card mm-empty" data-testid="matches-empty">
          <p>{t('match.matches.empty')}</p>
          <a
            className="btn btn-primary"
            href="/today"
            data-testid="matches-empty-today"
            onClick={(e) => {
              if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
              e.preventDefault();
              void navigate('/today');
            }}
          >
            {t('match.matches.openToday')}
          </a>
        </div>
      ) : (
        <ul className="match-list" data-testid="matches">
          {state.value.map((m) => {
            const photo = m.member.photoNameList[0];
            const last = m.lastMessage;
            return (
              <li key={m.matchId} className={`match-row${m.unread > 0 ? ' unread' : ''}`} data-testid="match" data-match-id={m.matchId} data-member-id={m.member.memberId} data-new={m.isNew}>
                <a
                  className="match-avatar"
                  href={`/member?id=${m.member.memberId}`}
                  data-testid="view-profile"
                  aria-label={t('match.viewProfileOf', { name: m.member.nickname })}
                  onClick={(e) => {
                    e.preventDefault();
                    void navigate(`/member?id=${m.member.memberId}`);
                  }}
                >
                  {photo ? <Image src={photo} alt="" width={56} height={56} /> : <span className="mm-no-photo" />}
                </a>
                <a
                  className="match-open"
                  href={`/chat?match=${m.matchId}`}
                  data-testid="open-chat"
                  onClick={(e) => {
                    e.preventDefault();
                    void navigate(`/chat?match=${m.matchId}`);
                  }}
                >
                  <span className="match-row-text">
                    <span className="match-name">
                      <span data-testid="member-nickname">{m.member.nickname}</span>
                      {m.isNew ? <span className="new-badge" data-testid="match-new">{t('match.new')}</span> : null}
                    </span>
                    <span className="mm-last" data-testid="match-last-message">
                      {last ? (last.mine ? t('match.chat.you', { text: last.text }) : last.text) : t('match.chat.sayHelloTo', { name: m.member.nickname })}
                    </span>
                  </span>
                  <span className="match-row-side">
                    <small className="muted">{when(last?.sentAt ?? m.matchedAt)}</small>
                    {m.unread > 0 ? (
                      <span className="mm-unread" data-testid="match-unread" aria-label={t('match.chat.unread', { n: m.unread })}>{m.unread}</span>
                    ) : null}
                  </span>
                </a>
              </li>
            );
          })}
        </ul>
      )}
      {state.kind === 'ok' && expired.kind === 'ok' ? <ExpiredMatches matches={expired.value} when={when} /> : null}
      <BottomNav current="matches" badges={{ matches: state.kind === 'ok' ? matchesBadge(state.value) : 0 }} />
    </section>
  );
}
