import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { BottomNav } from '@/components/bottom-nav';
import { matchmakingApi, type Introduction, type Introductions } from '@/features/matchmaking/api/matchmaking-api';
import { MemberSummary } from '@/features/matchmaking/components/member-summary';
import { Dialog } from '@/features/matchmaking/components/dialog';
import { LoadStatus } from '@/features/matchmaking/components/load-status';
import { useCatalogues } from '@/features/matchmaking/components/use-catalogues';
import { useLoad } from '@/features/matchmaking/components/use-load';
import '@/features/matchmaking/components/matchmaking.css';

/** /today: today's introductions (the server's list, fixed for the Asia/Taipei day), Like and Pass,
 *  and "It's a match" when a like was answered. */
export default function TodayPage() {
  const t = useT();
  const cat = useCatalogues();
  const [state, reload, set] = useLoad(matchmakingApi.introductions, 'today');
  const [matched, setMatched] = useState<string | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const [resuming, setResuming] = useState(false);

  const resume = async () => {
    setResuming(true);
    try {
      await matchmakingApi.resume();
      reload();
    } catch (err) {
      logger.warn(`resume failed: ${describeError(err)}`);
      toast.error(t('match.loadFailed'));
    } finally {
      setResuming(false);
    }
  };

  const react = async (intro: Introduction, kind: 'LIKE' | 'PASS') => {
    if (state.kind !== 'ok') return;
    const id = intro.member.memberId;
    setBusy(id);
    try {
      if (kind === 'LIKE') {
        const liked = await matchmakingApi.like(id);
        if (liked.matched) setMatched(intro.member.nickname);
        else toast.success(t('match.liked', { name: intro.member.nickname }));
      } else {
        await matchmakingApi.pass(id);
      }
      const list: Introductions = state.value;
      // A passed member drops out of the list, as the server's next answer would have it.
      set({
        ...list,
        introductions: list.introductions
          .filter((i) => kind === 'LIKE' || i.member.memberId !== id)
          .map((i) => (i.member.memberId === id ? { ...i, reaction: kind } : i)),
      });
    } catch (err) {
      logger.warn(`reaction failed: ${describeError(err)}`);
      toast.error(t('match.loadFailed'));
      reload();
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="page mm-page with-bottom-nav" aria-labelledby="today-title">
      <h1 id="today-title">{t('match.today.title')}</h1>
      {state.kind !== 'ok' ? (
        <LoadStatus state={state} onRetry={reload} />
      ) : state.value.pausedSince ? (
        <div className="card mm-paused" data-testid="today-paused">
          <h2>{t('match.today.pausedTitle')}</h2>
          <p className="muted">{t('match.today.paused')}</p>
          <button type="button" className="btn btn-primary" onClick={() => void resume()} disabled={resuming} data-testid="resume">
            {resuming ? t('common.processing') : t('match.today.resume')}
          </button>
        </div>
      ) : state.value.introductions.length === 0 ? (
        <p className="card muted" data-testid="today-empty">{t('match.today.empty')}</p>
      ) : (
        <ul className="mm-list" data-testid="introductions" data-day={state.value.day}>
          {state.value.introductions.map((intro) => (
            <li key={intro.member.memberId} className="card mm-card" data-testid="introduction" data-member-id={intro.member.memberId} data-reaction={intro.reaction ?? ''}>
              <MemberSummary member={intro.member} cat={cat} />
              <div className="mm-actions">
                <a
                  className="btn btn-small"
                  href={`/member?id=${intro.member.memberId}`}
                  data-testid="view-profile"
                  onClick={(e) => {
                    e.preventDefault();
                    void navigate(`/member?id=${intro.member.memberId}`);
                  }}
                >
                  {t('match.view')}
                </a>
                {intro.reaction === 'LIKE' ? (
                  <span className="badge" data-testid="liked">♥ {t('match.like')}</span>
                ) : (
                  <>
                    <button type="button" className="btn btn-small" data-testid="pass" disabled={busy !== null} onClick={() => void react(intro, 'PASS')}>
                      {t('match.pass')}
                    </button>
                    <button type="button" className="btn btn-small btn-primary" data-testid="like" disabled={busy !== null} onClick={() => void react(intro, 'LIKE')}>
                      ♥ {t('match.like')}
                    </button>
                  </>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      <Dialog open={matched !== null} title={t('match.itsAMatch')} onClose={() => setMatched(null)} testId="its-a-match">
        <p>{t('match.itsAMatchText', { name: matched ?? '' })}</p>
        <div className="mm-dialog-actions">
          <button type="button" className="btn" onClick={() => setMatched(null)}>{t('common.close')}</button>
          <button type="button" className="btn btn-primary" data-testid="see-matches" onClick={() => { setMatched(null); void navigate('/matches'); }}>
            {t('match.seeMatches')}
          </button>
        </div>
      </Dialog>
      <BottomNav current="today" />
    </section>
  );
}
