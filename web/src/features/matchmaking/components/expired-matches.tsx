import { quietMatchExpiryDays } from 'virtual:core-rules';
import { useT } from '@/lib/i18n';
import '@/features/matchmaking/lib/feature-messages';
import type { ExpiredMatch } from '@/features/matchmaking/api/matchmaking-api';

/** The matches that closed because nobody wrote within `quietMatchExpiryDays` days (the server
 *  lists them for 14 days): each by the other member's nickname with a line saying it expired,
 *  which is not an unmatch, and nothing to open (the chat is closed for both). */
export function ExpiredMatches({ matches, when }: { matches: ExpiredMatch[]; when: (secs: number) => string }) {
  const t = useT();
  if (matches.length === 0) return null;
  return (
    <section className="expired-matches" aria-labelledby="expired-title" data-testid="expired-matches">
      <h2 id="expired-title">{t('match.expired.title')}</h2>
      <ul className="match-list">
        {matches.map((m) => (
          <li key={m.matchId} className="match-row expired" data-testid="expired-match" data-match-id={m.matchId}>
            <span className="match-avatar" aria-hidden="true">
              <span className="mm-no-photo" />
            </span>
            <span className="match-open">
              <span className="match-row-text">
                <span className="match-name" data-testid="expired-nickname">{m.nickname}</span>
                <span className="mm-last" data-testid="expired-line">{t('match.expired.line', { days: quietMatchExpiryDays })}</span>
              </span>
              <span className="match-row-side">
                <small className="muted">{when(m.expiredAt)}</small>
              </span>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
