import { useState, type MouseEvent } from 'react';
import { useLocale, useT } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { toast } from '@/lib/toast';
import { useQuery } from '@/lib/query';
import { Spinner } from '@/components/spinner';
import { reviewApi, type FlaggedConversation } from '@/features/review/api/review-api';
import { memberName, reportTime, waited } from '@/features/review/lib/reports';
import { reviewQueries } from '@/features/review/api/queries';

/** Conversations the screening flagged: not reports (nobody reported, the match goes
 *  on), each once, oldest first, with how long it has waited and the flagged messages marked. A
 *  reviewer dismisses one, or opens the member's profile to suspend them (which settles it). */
export function FlaggedQueue({ onOpenProfile }: { onOpenProfile: (profileId: number) => void }) {
  const t = useT();
  const [state, reload] = useQuery(reviewQueries.flagged);
  const items = state.kind === 'ok' ? state.value.items : null;
  const now = state.kind === 'ok' ? state.value.now : 0;
  return (
    <div className="report-queue" data-testid="flagged-panel">
      <div className="review-row">
        <h2>{t('console.flagged.title')}</h2>
        <button type="button" className="btn btn-small" onClick={reload}>{t('console.refresh')}</button>
      </div>
      {state.kind === 'failed' ? <p className="notice notice-error" role="alert">{state.error instanceof ApiError ? state.error.causeText : describeError(state.error)}</p> : null}
      {items === null ? (state.kind === 'failed' ? null : <Spinner />) : items.length === 0 ? (
        <p className="muted card" data-testid="flagged-empty">{t('console.flagged.empty')}</p>
      ) : (
        <ol className="report-list" data-testid="flagged">
          {items.map((item) => (
            <li key={item.matchId}>
              <FlaggedCard item={item} now={now} onChanged={reload} onOpenProfile={onOpenProfile} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function FlaggedCard({ item, now, onChanged, onOpenProfile }: { item: FlaggedConversation; now: number; onChanged: () => void; onOpenProfile: (profileId: number) => void }) {
  const t = useT();
  const locale = useLocale();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const member = memberName(item.member);
  const other = memberName(item.other);

  const openProfile = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    onOpenProfile(item.member.profileId);
  };

  const dismiss = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await reviewApi.dismissFlagged(item.matchId);
      toast.success(t('console.flagged.dismissed'));
      onChanged();
    } catch (err) {
      logger.warn(`dismiss a flagged conversation: ${describeError(err)}`);
      setProblem(err instanceof ApiError && err.status === 409 ? t('console.flagged.settled') : err instanceof ApiError ? err.causeText : describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article className="card report-card" data-testid="flagged-item" data-match-id={item.matchId} data-member-id={item.member.profileId}>
      <div className="review-row">
        <h3 className="report-target">
          <a href={`/review?profile=${item.member.profileId}`} onClick={openProfile} data-testid="flagged-open-profile">
            <span data-testid="flagged-member">{member}</span>
          </a>{' '}
          <span className="muted">{t('console.flagged.with', { name: other })}</span>
        </h3>
        <span className="badge badge-pending" data-testid="flagged-cause">{t(`console.flagged.cause.${item.cause}`)}</span>
      </div>
      <p className="muted" data-testid="flagged-waited">{t('console.waited', { time: waited(t, Math.max(0, now - item.createdAt)) })}</p>
      <section className="report-conversation" data-testid="flagged-conversation">
        <h4>{t('console.reports.conversation')}</h4>
        <ol>
          {item.conversation.map((line, i) => (
            <li key={i} className={`report-line report-line-${line.from === 'member' ? 'reported' : 'reporter'}${line.kinds.length ? ' flagged-line' : ''}`} data-from={line.from} data-kinds={line.kinds.join(',') || undefined}>
              <strong>{line.from === 'member' ? member : other}</strong>{' '}
              <span className="muted">{reportTime(line.sentAt, locale)}</span>
              {line.kinds.length ? <span className="badge badge-rejected" data-testid="flagged-mark">{line.kinds.map((k) => t(`console.flagged.kind.${k}`)).join(' · ')}</span> : null}
              <p>{line.text}</p>
            </li>
          ))}
        </ol>
      </section>
      {confirming ? (
        <div className="notice report-confirm" role="group" aria-label={t('console.reports.dismiss')} data-testid="flagged-dismiss-box">
          <p>{t('console.flagged.dismissConfirm', { name: member })}</p>
          <div className="report-actions">
            <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => void dismiss()} data-testid="flagged-dismiss-confirm">
              {busy ? t('common.saving') : t('console.reports.dismissYes')}
            </button>
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => setConfirming(false)}>{t('console.reports.cancel')}</button>
          </div>
        </div>
      ) : (
        <div className="report-actions">
          <button type="button" className="btn btn-small" onClick={() => setConfirming(true)} data-testid="flagged-dismiss">{t('console.reports.dismiss')}</button>
        </div>
      )}
      {problem ? <p className="notice notice-error" role="alert" data-testid="flagged-error">{problem}</p> : null}
    </article>
  );
}
