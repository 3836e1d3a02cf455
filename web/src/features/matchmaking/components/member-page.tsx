import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { BottomNav } from '@/components/bottom-nav';
import { Image } from '@/components/image';
import { matchmakingApi } from '@/features/matchmaking/api/matchmaking-api';
import { MemberSummary } from '@/features/matchmaking/components/member-summary';
import { SafetyActions } from '@/features/matchmaking/components/safety-actions';
import { LoadStatus } from '@/features/matchmaking/components/load-status';
import { useCatalogues } from '@/features/matchmaking/components/use-catalogues';
import { useLoad } from '@/features/matchmaking/components/use-load';
import { answers, memberIdFrom, tagLabels } from '@/features/matchmaking/lib/member-facts';
import { ApiError } from '@/lib/api-client';
import '@/features/matchmaking/components/matchmaking.css';

/** /member?id=…: what the API gives of one of the caller's introductions or matches, with Block
 *  and Report. Anyone else is E003 on the server, shown as "no longer available". */
export default function MemberPage() {
  const t = useT();
  const cat = useCatalogues();
  // The shell re-renders the route on every guarded navigation, search changes included; reading
  // location here keeps wouter's useSearch (and its bytes) out of the first render's chunk.
  const id = memberIdFrom(location.search);
  const [state, reload] = useLoad(() => (id === null ? Promise.reject(notFound()) : matchmakingApi.member(id)), String(id));

  return (
    <section className="page mm-page with-bottom-nav" aria-labelledby="member-title">
      <h1 id="member-title" className="sr-only">{state.kind === 'ok' ? state.value.nickname : t('match.nav.profile')}</h1>
      <button type="button" className="btn btn-small" onClick={() => history.back()}>
        ← {t('common.back')}
      </button>
      {state.kind !== 'ok' ? (
        <LoadStatus state={state} onRetry={reload} />
      ) : (
        <article className="card" data-testid="member-profile" data-member-id={state.value.memberId}>
          <MemberSummary member={state.value} cat={cat} photoWidth={120} />
          <h3>{t('field.aboutMe')}</h3>
          <p className="about" data-testid="member-about">{state.value.aboutMe}</p>
          {tagLabels(t, cat, state.value).length ? (
            <>
              <h3>{t('match.tags')}</h3>
              <ul className="chips" data-testid="member-tags">
                {tagLabels(t, cat, state.value).map((label) => (
                  <li key={label} className="chip">{label}</li>
                ))}
              </ul>
            </>
          ) : null}
          {answers(state.value).length ? (
            <>
              <h3>{t('match.qa')}</h3>
              <dl className="mm-qa">
                {answers(state.value).map((a) => (
                  <div key={a.key}>
                    <dt>{t(a.key)}</dt>
                    <dd>{a.text}</dd>
                  </div>
                ))}
              </dl>
            </>
          ) : null}
          {state.value.photoNameList.length > 1 ? (
            <ul className="photo-grid" data-testid="member-photos">
              {state.value.photoNameList.slice(1).map((p, i) => (
                <li key={p}>
                  <Image src={p} alt={t('match.photoAlt', { n: i + 2, name: state.value.nickname })} width={110} height={147} />
                </li>
              ))}
            </ul>
          ) : null}
          <SafetyActions memberId={state.value.memberId} name={state.value.nickname} onDone={() => void navigate('/matches', { replace: true })} />
        </article>
      )}
      <BottomNav current={null} />
    </section>
  );
}

function notFound() {
  return new ApiError('E003', 'no such member', 404);
}
