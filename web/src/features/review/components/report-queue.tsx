import { useState, type MouseEvent } from 'react';
import { hasMessage, useLocale, useT } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { toast } from '@/lib/toast';
import { Spinner } from '@/components/spinner';
import { reviewApi, type CodeCatalogues, type ReportItem } from '@/features/review/api/review-api';
import { conversationOf, memberName, reasonLabels, reportTime, suggestedReason, suspensionProblem, waited } from '@/features/review/lib/reports';

/** The report queue: open reports of one member by another, oldest first. A report is
 *  dismissed, or its member suspended through the ordinary SUSPEND decision, which settles every
 *  open report about them and ends their matches on the server. */
export function ReportQueue({
  items,
  codes,
  loadError,
  onChanged,
  onOpenProfile,
  now,
}: {
  items: ReportItem[] | null;
  codes: CodeCatalogues | null;
  loadError: string | null;
  onChanged: () => void;
  onOpenProfile: (profileId: number) => void;
  /** The server's time of the answer (Unix seconds): each report's wait is counted to it. */
  now?: number;
}) {
  const t = useT();
  return (
    <div className="report-queue" data-testid="reports-panel">
      <div className="review-row">
        <h2>{t('console.reports.title')}</h2>
        <button type="button" className="btn btn-small" onClick={onChanged}>{t('console.refresh')}</button>
      </div>
      {loadError ? <p className="notice notice-error" role="alert">{loadError}</p> : null}
      {items === null ? <Spinner /> : items.length === 0 ? (
        <p className="muted card" data-testid="reports-empty">{t('console.reports.empty')}</p>
      ) : (
        <ol className="report-list" data-testid="reports">
          {items.map((item) => (
            <li key={item.reportId}>
              <ReportCard item={item} codes={codes} onChanged={onChanged} onOpenProfile={onOpenProfile} now={now} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

type Mode = 'idle' | 'dismiss' | 'suspend';

export function ReportCard({
  item,
  codes,
  onChanged,
  onOpenProfile,
  now,
}: {
  item: ReportItem;
  codes: CodeCatalogues | null;
  onChanged: () => void;
  onOpenProfile: (profileId: number) => void;
  now?: number;
}) {
  const t = useT();
  const locale = useLocale();
  const [mode, setMode] = useState<Mode>('idle');
  const [busy, setBusy] = useState(false);
  const [reason, setReason] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  // The console's words first; the server's reason (which of the two conflicts it was) after them.
  const [conflict, setConflict] = useState<{ text: string; cause: string } | null>(null);

  const target = memberName(item.target);
  // A reporter who deleted their account is not named; their report stays.
  const reporter = item.reporter ? memberName(item.reporter) : t('console.reports.reporterLeft');
  const reasons = reasonLabels(t, hasMessage, codes?.report, item.reasons);
  const conversation = conversationOf(item);
  // Until the reviewer picks, the reason the report suggests (the catalogue may load later).
  const chosen = reason ?? suggestedReason(item, codes?.suspend);
  const canSuspend = item.targetStatus === 'APPROVED';

  const openProfile = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    onOpenProfile(item.target.profileId);
  };

  const cancel = () => {
    setMode('idle');
    setProblem(null);
    setConflict(null);
  };

  const dismiss = async () => {
    setBusy(true);
    setProblem(null);
    setConflict(null);
    try {
      await reviewApi.dismiss(item.reportId);
      toast.success(t('console.reports.dismissed'));
      onChanged();
    } catch (err) {
      logger.warn(`dismiss: ${describeError(err)}`);
      if (err instanceof ApiError && err.status === 409) setConflict({ text: t('console.reports.settled'), cause: err.causeText });
      else setProblem(err instanceof ApiError ? err.causeText : describeError(err));
    } finally {
      setBusy(false);
    }
  };

  const suspend = async () => {
    const missing = suspensionProblem(chosen, note);
    if (missing) {
      setProblem(t(missing === 'reason' ? 'console.reports.needReason' : 'console.reports.needNote'));
      return;
    }
    setBusy(true);
    setProblem(null);
    setConflict(null);
    try {
      await reviewApi.decide(item.target.profileId, {
        action: 'SUSPEND',
        reasons: [chosen],
        note: note.trim() || undefined,
        version: item.targetVersion,
      });
      toast.success(t('console.reports.suspended', { name: target }));
      onChanged();
    } catch (err) {
      logger.warn(`suspend from a report: ${describeError(err)}`);
      if (err instanceof ApiError && err.status === 409) setConflict({ text: t('console.reports.conflict', { name: target }), cause: err.causeText });
      else setProblem(err instanceof ApiError ? err.causeText : describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article className="card report-card" data-testid="report" data-report-id={item.reportId} data-target-id={item.target.profileId}>
      <div className="review-row">
        <h3 className="report-target">
          <span className="muted">{t('console.reports.reported')}</span>{' '}
          <a href={`/review?profile=${item.target.profileId}`} onClick={openProfile} data-testid="report-open-profile">
            <span data-testid="report-target">{target}</span>
          </a>
        </h3>
        {canSuspend ? null : <span className={`badge badge-${item.targetStatus.toLowerCase()}`}>{t(`review.${item.targetStatus}`)}</span>}
      </div>
      <p className="muted">
        <span data-testid="report-reporter">{t('console.reports.reporter', { name: reporter })}</span>
        {' · '}
        <time dateTime={new Date(item.createdAt * 1000).toISOString()} data-testid="report-time">{reportTime(item.createdAt, locale)}</time>
      </p>
      {now != null ? (
        <p className="muted" data-testid="report-waited">{t('console.waited', { time: waited(t, Math.max(0, now - item.createdAt)) })}</p>
      ) : null}
      <ul className="report-reasons" data-testid="report-reasons" aria-label={t('console.reports.reasons')}>
        {reasons.map((r, i) => <li key={item.reasons[i]} className="badge" data-reason={item.reasons[i]}>{r}</li>)}
      </ul>
      {item.text ? (
        <blockquote className="report-text" data-testid="report-text">{item.text}</blockquote>
      ) : <p className="muted" data-testid="report-text">{t('console.reports.noText')}</p>}

      <section className="report-conversation" data-testid="report-conversation">
        <h4>{t('console.reports.conversation')}</h4>
        {conversation.length ? (
          <ol>
            {conversation.map((line, i) => (
              <li key={i} className={`report-line report-line-${line.from}`} data-from={line.from}>
                <strong>{line.from === 'reporter' ? reporter : target}</strong>{' '}
                <span className="muted">{reportTime(line.sentAt, locale)}</span>
                <p>{line.text}</p>
              </li>
            ))}
          </ol>
        ) : <p className="muted">{t('console.reports.noConversation')}</p>}
      </section>

      {mode === 'idle' ? (
        <div className="report-actions">
          <button type="button" className="btn btn-small" onClick={() => setMode('dismiss')} data-testid="report-dismiss">
            {t('console.reports.dismiss')}
          </button>
          {canSuspend ? (
            <button type="button" className="btn btn-small btn-danger" onClick={() => setMode('suspend')} data-testid="report-suspend">
              {t('console.reports.suspend', { name: target })}
            </button>
          ) : null}
        </div>
      ) : null}

      {mode === 'dismiss' ? (
        <div className="notice report-confirm" role="group" aria-label={t('console.reports.dismiss')} data-testid="dismiss-box">
          <p>{t('console.reports.dismissConfirm', { name: target })}</p>
          <div className="report-actions">
            <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => void dismiss()} data-testid="dismiss-confirm">
              {busy ? t('common.saving') : t('console.reports.dismissYes')}
            </button>
            <button type="button" className="btn btn-small" disabled={busy} onClick={cancel}>{t('console.reports.cancel')}</button>
          </div>
        </div>
      ) : null}

      {mode === 'suspend' ? (
        <form className="decision-form report-suspend-form" data-testid="suspend-form" onSubmit={(e) => { e.preventDefault(); void suspend(); }}>
          <p className="muted">{t('console.reports.suspendHelp', { name: target })}</p>
          <fieldset>
            <legend className="field-label">{t('console.suspendReason')}</legend>
            {(codes?.suspend ?? []).map((c) => (
              <label key={c.code} className="check">
                <input type="radio" name={`suspend-reason-${item.reportId}`} value={c.code} checked={chosen === c.code} onChange={() => setReason(c.code)} />
                <span>{hasMessage(c.key) ? t(c.key) : c.code}</span>
              </label>
            ))}
          </fieldset>
          <div className="field">
            <label className="field-label" htmlFor={`suspend-note-${item.reportId}`}>{t('console.note')}</label>
            <p className="field-hint">{t('console.noteHint')}</p>
            <textarea id={`suspend-note-${item.reportId}`} className="input textarea" rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
          </div>
          <div className="report-actions">
            <button type="submit" className="btn btn-small btn-danger" disabled={busy} data-testid="suspend-confirm">
              {busy ? t('common.saving') : t('console.reports.suspendYes')}
            </button>
            <button type="button" className="btn btn-small" disabled={busy} onClick={cancel}>{t('console.reports.cancel')}</button>
          </div>
        </form>
      ) : null}

      {conflict ? (
        <p className="notice notice-error" role="alert" data-testid="report-conflict">
          <strong>{conflict.text}</strong> <span>{conflict.cause}</span>
        </p>
      ) : null}
      {problem ? <p className="notice notice-error" role="alert" data-testid="report-error">{problem}</p> : null}
    </article>
  );
}
