import { useId, useState, type MouseEvent } from 'react';
import { hasMessage, useLocale, useT } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { toast } from '@/lib/toast';
import { useQuery } from '@/lib/query';
import { Spinner } from '@/components/spinner';
import { reviewApi, type AppealItem, type CodeCatalogues } from '@/features/review/api/review-api';
import { reasonLabels, reportTime, waited } from '@/features/review/lib/reports';
import { reviewQueries } from '@/features/review/api/queries';

/** Suspended members' appeals, the longest waiting first, each its own kind of item: the member's
 *  words beside the suspension's reasons. The server leaves out the appeals this reviewer may not
 *  answer (a member they suspended: another reviewer gives the second look). */
export function AppealQueue({ codes, onOpenProfile, onDecided }: { codes: CodeCatalogues | null; onOpenProfile: (profileId: number) => void; onDecided: () => void }) {
  const t = useT();
  const [state, reload] = useQuery(reviewQueries.appeals);
  const items = state.kind === 'ok' ? state.value.items : null;
  return (
    <div className="report-queue" data-testid="appeals-panel">
      <div className="review-row">
        <h2>{t('console.appeals.title')}</h2>
        <button type="button" className="btn btn-small" onClick={reload}>{t('console.refresh')}</button>
      </div>
      <p className="muted">{t('console.appeals.help')}</p>
      {state.kind === 'failed' ? <p className="notice notice-error" role="alert">{state.error instanceof ApiError ? state.error.causeText : describeError(state.error)}</p> : null}
      {items === null ? (state.kind === 'failed' ? null : <Spinner />) : items.length === 0 ? (
        <p className="muted card" data-testid="appeals-empty">{t('console.appeals.empty')}</p>
      ) : (
        <ol className="report-list" data-testid="appeals">
          {items.map((item) => (
            <li key={item.appealId}>
              <AppealCard item={item} codes={codes} onChanged={() => { reload(); onDecided(); }} onOpenProfile={onOpenProfile} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function AppealCard({ item, codes, onChanged, onOpenProfile }: { item: AppealItem; codes: CodeCatalogues | null; onChanged: () => void; onOpenProfile: (profileId: number) => void }) {
  const t = useT();
  const locale = useLocale();
  const noteId = useId();
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const name = item.nickname ?? `#${item.profileId}`;
  const reasons = reasonLabels(t, hasMessage, codes?.suspend, item.reasons);

  const openProfile = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    onOpenProfile(item.profileId);
  };

  const decide = async (outcome: 'UPHELD' | 'REINSTATED') => {
    setBusy(true);
    setProblem(null);
    try {
      await reviewApi.decideAppeal(item.appealId, { outcome, note: note.trim() || undefined });
      toast.success(t(`console.appeals.done.${outcome}`, { name }));
      onChanged();
    } catch (err) {
      logger.warn(`answer an appeal: ${describeError(err)}`);
      setProblem(err instanceof ApiError && err.status === 409 ? t('console.appeals.settled') : err instanceof ApiError ? err.causeText : describeError(err));
      setBusy(false);
    }
  };

  return (
    <article className="card report-card" data-testid="appeal-item" data-appeal-id={item.appealId} data-profile-id={item.profileId}>
      <div className="review-row">
        <h3 className="report-target">
          <a href={`/review?profile=${item.profileId}`} onClick={openProfile} data-testid="appeal-open-profile">{name}</a>
        </h3>
        <span className="badge badge-pending">{t('console.appeals.badge')}</span>
      </div>
      <p className="muted" data-testid="appeal-waited">{t('console.waited', { time: waited(t, item.waitedSecs) })}</p>
      <dl className="summary-list">
        <dt>{t('console.appeals.suspended')}</dt>
        <dd>{reportTime(item.suspendedAt, locale)}</dd>
        <dt>{t('console.appeals.reasons')}</dt>
        <dd data-testid="appeal-reasons">{reasons.join(' · ')}</dd>
        {item.suspensionNote ? (<><dt>{t('console.appeals.suspensionNote')}</dt><dd>{item.suspensionNote}</dd></>) : null}
      </dl>
      <blockquote className="report-text" data-testid="appeal-text">{item.text}</blockquote>
      <label htmlFor={noteId}>{t('console.appeals.note')}</label>
      <textarea id={noteId} className="input" rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
      <div className="report-actions">
        <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => void decide('REINSTATED')} data-testid="appeal-reinstate">
          {t('console.appeals.reinstate')}
        </button>
        <button type="button" className="btn btn-small" disabled={busy} onClick={() => void decide('UPHELD')} data-testid="appeal-uphold">
          {t('console.appeals.uphold')}
        </button>
      </div>
      {problem ? <p className="notice notice-error" role="alert" data-testid="appeal-error">{problem}</p> : null}
    </article>
  );
}
