import { useState, type MouseEvent } from 'react';
import { useLocale, useT } from '@/lib/i18n';
import { getConfig } from '@/lib/config';
import { getUserInfo } from '@/lib/auth';
import { navigate } from '@/lib/navigation';
import { formatNextIntroductions, nextIntroductionsAt } from '@/features/matchmaking/lib/next-introductions';

/** A photo count and the answers below which a profile reads as unfinished. */
const FULL_PROFILE_PHOTOS = 3;

function go(e: MouseEvent<HTMLAnchorElement>, path: string) {
  if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  void navigate(path);
}

/** No introductions today: when the next ones come (the server's time, in the member's own time
 *  zone; nothing when the server runs no schedule) and what to do meanwhile. */
export function TodayEmpty() {
  const t = useT();
  const locale = useLocale();
  // Read once when the card appears: the time it names does not move while it is on screen.
  const [next] = useState(() => nextIntroductionsAt(getConfig()?.introductionsAt, Date.now()));
  const profile = getUserInfo()?.profile ?? null;
  const photos = profile?.photoNameList.length ?? 0;
  const answers = [profile?.datingQuestion, profile?.dailyLife, profile?.surprisePoint].filter((a) => a?.trim()).length;
  const incomplete = profile === null || photos < FULL_PROFILE_PHOTOS || answers < 3;
  const conditions = profile?.valueItem?.length ?? 0;
  return (
    <div className="card mm-empty" data-testid="today-empty">
      <h2>{t('match.today.emptyTitle')}</h2>
      {next !== null ? (
        <p data-testid="today-next" data-at={next}>
          {t('match.today.nextAt', { when: formatNextIntroductions(next, locale) })}
        </p>
      ) : null}
      <h3>{t('match.today.meanwhile')}</h3>
      <ul className="mm-empty-steps">
        {incomplete ? (
          <li data-testid="today-tip-profile">
            <p>{t('match.today.tipProfile', { photos, answers })}</p>
            <a className="btn btn-small" href="/profile" onClick={(e) => go(e, '/profile')}>{t('match.today.openProfile')}</a>
          </li>
        ) : null}
        <li data-testid="today-tip-conditions">
          <p>{conditions > 0 ? t('match.today.tipConditions', { n: conditions }) : t('match.today.tipDistance')}</p>
          <a className="btn btn-small" href="/profile" onClick={(e) => go(e, '/profile')}>{t('match.today.openConditions')}</a>
        </li>
        <li data-testid="today-tip-likes">
          <p>{t('match.today.tipLikes')}</p>
          <a className="btn btn-small" href="/likes" onClick={(e) => go(e, '/likes')}>{t('match.today.openLikes')}</a>
        </li>
      </ul>
    </div>
  );
}
