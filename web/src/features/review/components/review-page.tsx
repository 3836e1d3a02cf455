import { use, useState } from 'react';
import { extendMessages, useT } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { describeError } from '@/lib/logger';
import { useQuery, type QueryState } from '@/lib/query';
import { Spinner } from '@/components/spinner';
import { ReviewDetail } from '@/features/review/components/review-detail';
import { ReportQueue } from '@/features/review/components/report-queue';
import { EmployersMissing } from '@/features/review/components/employers-missing';
import { FlaggedQueue } from '@/features/review/components/flagged-queue';
import { AppealQueue } from '@/features/review/components/appeal-queue';
import { consoleParams, oldestFirst, waited, type ConsoleTab as Tab } from '@/features/review/lib/reports';
import '@/features/review/components/review.css';
import { reviewQueries } from '@/features/review/api/queries';
import { codesQuery } from '@/lib/shared-queries';

/** /review: the reviewer console, a lazy chunk of its own so a member's first render
 *  does not carry it. The queue beside the open profile on a laptop, one above the other on a phone.
 *  A second tab holds the members' reports, a third the suspended members' appeals; `?tab=reports`,
 *  `?tab=appeals` and `?profile=<id>` open the
 *  console there, so a report's link to the reported member's profile can open in a new tab. */
const consoleMessages = extendMessages({
  'zh-TW': () => import('@/features/review/locales/zh-TW.json'),
  en: () => import('@/features/review/locales/en.json'),
  ja: () => import('@/features/review/locales/ja.json'),
});

export default function ReviewPage() {
  use(consoleMessages);
  const t = useT();
  const [queue, reload] = useQuery(reviewQueries.queue);
  const [reportQueue, reloadReports] = useQuery(reviewQueries.reports);
  const [codeState] = useQuery(codesQuery);
  const items = queue.kind === 'ok' ? queue.value.items : null;
  const reports = reportQueue.kind === 'ok' ? oldestFirst(reportQueue.value.items) : null;
  const codes = codeState.kind === 'ok' ? codeState.value : null;
  const refused = [queue, reportQueue].some(isRefusal);
  const loadError = problemText(queue);
  const reportsError = problemText(reportQueue);
  const [opened, setOpened] = useState<{ id: number; at: number } | null>(() => {
    const id = consoleParams().profile;
    return id ? { id, at: 0 } : null;
  });
  const open = opened?.id ?? null;
  const [tab, setTabState] = useState<Tab>(() => (consoleParams().profile ? 'profiles' : consoleParams().tab));
  const setTab = (next: Tab, profile?: number) => {
    setTabState(next);
    // Kept in the address so a reload shows the same place; the router needs not know.
    const query = profile ? `?profile=${profile}` : next !== 'profiles' ? `?tab=${next}` : '';
    history.replaceState(history.state, '', `${location.pathname}${query}`);
  };
  // Opening again (the same entry clicked after a refresh) reads the profile afresh.
  const setOpen = (id: number) => {
    setOpened((prev) => ({ id, at: (prev?.at ?? 0) + 1 }));
    setTab('profiles', id);
  };
  const [lookup, setLookup] = useState('');
  if (refused) {
    return (
      <section className="page review-page" aria-labelledby="review-title">
        <h1 id="review-title">{t('console.title')}</h1>
        <p className="notice notice-error" role="alert" data-testid="review-refused">{t('console.refused')}</p>
      </section>
    );
  }

  return (
    <section className="page review-page" aria-labelledby="review-title">
      <h1 id="review-title">{t('console.title')}</h1>
      <div className="review-tabs" role="tablist" aria-label={t('console.title')}>
        <button type="button" role="tab" id="tab-profiles" aria-controls="panel-profiles" aria-selected={tab === 'profiles'} className={`review-tab${tab === 'profiles' ? ' review-tab-on' : ''}`} onClick={() => setTab('profiles', open ?? undefined)} data-testid="tab-profiles">
          {t('console.tab.profiles')}
          {items?.length ? <span className="badge" data-testid="queue-count">{items.length}</span> : null}
        </button>
        <button type="button" role="tab" id="tab-reports" aria-controls="panel-reports" aria-selected={tab === 'reports'} className={`review-tab${tab === 'reports' ? ' review-tab-on' : ''}`} onClick={() => { setTab('reports'); reloadReports(); }} data-testid="tab-reports">
          {t('console.tab.reports')}
          {reports?.length ? <span className="badge badge-rejected" data-testid="reports-count" aria-label={t('console.reports.count', { n: reports.length })}>{reports.length}</span> : null}
        </button>
        <button type="button" role="tab" id="tab-appeals" aria-controls="panel-appeals" aria-selected={tab === 'appeals'} className={`review-tab${tab === 'appeals' ? ' review-tab-on' : ''}`} onClick={() => setTab('appeals')} data-testid="tab-appeals">
          {t('console.tab.appeals')}
        </button>
      </div>
      {tab === 'appeals' ? (
        <div role="tabpanel" id="panel-appeals" aria-labelledby="tab-appeals">
          <AppealQueue codes={codes} onOpenProfile={setOpen} onDecided={reload} />
        </div>
      ) : tab === 'reports' ? (
        <div role="tabpanel" id="panel-reports" aria-labelledby="tab-reports">
          <ReportQueue items={reports} codes={codes} loadError={reportsError} onChanged={reloadReports} onOpenProfile={setOpen} now={reportQueue.kind === 'ok' ? reportQueue.value.now : undefined} />
          <FlaggedQueue onOpenProfile={setOpen} />
        </div>
      ) : (
      <div className="review-layout" role="tabpanel" id="panel-profiles" aria-labelledby="tab-profiles">
        <div className="review-queue card">
          <div className="review-row">
            <h2>{t('console.queue')}</h2>
            <button type="button" className="btn btn-small" onClick={reload}>{t('console.refresh')}</button>
          </div>
          {loadError ? <p className="notice notice-error" role="alert">{loadError}</p> : null}
          {items === null ? <Spinner /> : items.length === 0 ? <p className="muted" data-testid="queue-empty">{t('console.queueEmpty')}</p> : (
            <ol className="queue-list" data-testid="queue">
              {items.map((item) => (
                <li key={item.profileId}>
                  <button
                    type="button"
                    className={`queue-item${open === item.profileId ? ' queue-item-open' : ''}`}
                    onClick={() => setOpen(item.profileId)}
                    data-testid="queue-item"
                    data-profile-id={item.profileId}
                    aria-current={open === item.profileId ? 'true' : undefined}
                  >
                    <span className="queue-name">{item.nickname ?? `#${item.profileId}`}</span>
                    <span className="muted">{t('console.waited', { time: waited(t, item.waitedSecs) })}</span>
                    <span className="queue-badges">
                      {item.resubmission ? <span className="badge badge-pending" data-testid="resubmission-badge">{t('console.resubmission', { n: item.submission })}</span> : null}
                      {item.revision != null ? <span className="badge badge-pending" data-testid="revision-badge">{t('console.revision', { n: item.revision })}</span> : null}
                      {item.claim ? <span className="badge">{item.claim.mine ? t('console.heldByMe') : t('console.heldByOther')}</span> : null}
                    </span>
                  </button>
                </li>
              ))}
            </ol>
          )}
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              const id = Number.parseInt(lookup, 10);
              if (Number.isInteger(id) && id > 0) setOpen(id);
            }}
          >
            <label htmlFor="review-lookup">{t('console.openById')}</label>
            <input id="review-lookup" className="input" inputMode="numeric" value={lookup} onChange={(e) => setLookup(e.target.value.replace(/\D/g, ''))} />
            <button type="submit" className="btn">{t('console.open')}</button>
          </form>
          <EmployersMissing onOpen={setOpen} />
        </div>
        <div className="review-main">
          {open === null ? <p className="muted">{t('console.pick')}</p> : <ReviewDetail key={`${open}:${opened?.at}`} profileId={open} codes={codes} onDecided={() => { reload(); reloadReports(); }} />}
        </div>
      </div>
      )}
    </section>
  );
}

/** A member (403) or a caller without a session (401): the console is not theirs. */
function isRefusal(state: QueryState<unknown>): boolean {
  return state.kind === 'forbidden' || (state.kind === 'failed' && state.error instanceof ApiError && state.error.status === 401);
}

function problemText(state: QueryState<unknown>): string | null {
  if (state.kind !== 'failed') return null;
  return state.error instanceof ApiError ? state.error.causeText : describeError(state.error);
}
