import { useCallback, useEffect, useState } from 'react';
import { reportText } from 'virtual:core-rules';
import { Ban, Flag } from 'lucide-react';
import { hasMessage, useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { invalidate, queryKeys, useQuery } from '@/lib/query';
import { codesQuery } from '@/lib/shared-queries';
import { describeError, logger } from '@/lib/logger';
import { matchmakingApi } from '@/features/matchmaking/api/matchmaking-api';
import { reportProblem } from '@/features/matchmaking/lib/member-facts';
import { Dialog } from '@/features/matchmaking/components/dialog';

export type SafetyKind = 'block' | 'report' | 'unmatch';

/** Block, Report (reasons from the server's /catalogue/codes) and, in a match, Unmatch: each
 *  confirmed in a dialog that says what happens. `open` names the dialog shown; `onDone` is
 *  called once it is done (the pair no longer sees each other's match, or anything at all). */
export function SafetyDialogs({ memberId, name, matchId, open, onClose, onDone, preset }: {
  memberId: number;
  name: string;
  matchId?: number | null;
  open: SafetyKind | null;
  /** Report reasons chosen when the dialogs mount (a caution's report: the scam reason; its
   *  caller mounts them afresh for each report). */
  preset?: readonly string[];
  onClose: () => void;
  onDone: (kind: SafetyKind) => void;
}) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  // The reasons are asked for when the report dialog opens (and kept for its next opening).
  const [codes] = useQuery(open === 'report' ? codesQuery : null);
  const reasons = codes.kind === 'ok' ? codes.value.report : null;
  const unavailable = open === 'report' && (codes.kind === 'failed' || codes.kind === 'forbidden');
  // One reason: the row that says it best (a long list of small checkboxes read as a form to fill);
  // a caution's report starts on the scam reason.
  const [chosen, setChosen] = useState<string | null>(() => preset?.[0] ?? null);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<'reasons' | 'text' | null>(null);

  useEffect(() => {
    // Without its reasons a report cannot be sent: say so rather than show an empty dialog.
    if (!unavailable) return;
    toast.error(t('match.loadFailed'));
    onClose();
  }, [unavailable, onClose, t]);

  const act = async (kind: SafetyKind, call: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      await call();
      toast.success(done);
      // Each ends every tie between the two (an unmatch, the match): the lists lose them.
      for (const key of [queryKeys.introductions, queryKeys.matches, queryKeys.likes]) invalidate(key);
      onDone(kind);
    } catch (err) {
      logger.warn(`${kind} failed: ${describeError(err)}`);
      toast.error(t('match.loadFailed'));
    } finally {
      setBusy(false);
    }
  };

  const report = () => {
    const reasons = chosen === null ? [] : [chosen];
    const p = reportProblem(reasons, text);
    setProblem(p);
    if (p) return;
    void act('report', () => matchmakingApi.report(memberId, reasons, text.trim() || undefined), t('match.reportSent', { name }));
  };

  return (
    <>
      <Dialog open={open === 'block'} title={t('match.blockTitle', { name })} onClose={onClose} testId="block-dialog">
        <p>{t('match.blockConfirm', { name })}</p>
        <div className="mm-dialog-actions">
          <button type="button" className="btn" onClick={onClose}>{t('match.cancel')}</button>
          <button type="button" className="btn btn-danger" data-testid="block-confirm" disabled={busy} onClick={() => void act('block', () => matchmakingApi.block(memberId), t('match.blocked', { name }))}>
            {t('match.block')}
          </button>
        </div>
      </Dialog>

      <Dialog open={open === 'unmatch'} title={t('match.unmatchTitle', { name })} onClose={onClose} testId="unmatch-dialog">
        <p>{t('match.unmatchConfirm', { name })}</p>
        <div className="mm-dialog-actions">
          <button type="button" className="btn" onClick={onClose}>{t('match.cancel')}</button>
          <button type="button" className="btn btn-danger" data-testid="unmatch-confirm" disabled={busy || matchId == null} onClick={() => matchId != null && void act('unmatch', () => matchmakingApi.unmatch(matchId), t('match.unmatched', { name }))}>
            {t('match.unmatch')}
          </button>
        </div>
      </Dialog>

      {/* The first focus on the title: on the text box, the phone's keyboard covered the reasons. */}
      <Dialog open={open === 'report'} title={t('match.reportTitle', { name })} onClose={onClose} testId="report-dialog" initialFocus="title">
        <fieldset className="mm-reasons" aria-invalid={problem === 'reasons' || undefined}>
          <legend>{t('match.reportReasons')}</legend>
          {(reasons ?? []).map((r) => (
            <label key={r.code} className="mm-reason">
              <input type="radio" name="report-reason" value={r.code} checked={chosen === r.code} onChange={() => setChosen(r.code)} />
              <span>{hasMessage(r.key) ? t(r.key) : r.code}</span>
            </label>
          ))}
          {problem === 'reasons' ? <p className="field-error" role="alert">{t('match.reportNeedReason')}</p> : null}
        </fieldset>
        <label className="mm-report-text">
          {t('match.reportText')}
          <textarea value={text} maxLength={reportText.max} rows={3} onChange={(e) => setText(e.target.value)} aria-invalid={problem === 'text' || undefined} />
        </label>
        <p className="muted">{t('match.reportTextHint')}</p>
        {problem === 'text' ? <p className="field-error" role="alert">{t('match.reportNeedText')}</p> : null}
        <div className="mm-dialog-actions">
          <button type="button" className="btn" onClick={onClose}>{t('match.cancel')}</button>
          <button type="button" className="btn btn-serious" data-testid="report-confirm" disabled={busy} onClick={report}>
            {t('match.reportSend')}
          </button>
        </div>
      </Dialog>
    </>
  );
}

/** Block and Report at the foot of a profile; `onDone` then leaves the page. */
export function SafetyActions({ memberId, name, onDone }: { memberId: number; name: string; onDone: () => void }) {
  const t = useT();
  const [open, setOpen] = useState<SafetyKind | null>(null);
  const close = useCallback(() => setOpen(null), []);
  return (
    <div className="mm-safety">
      <button type="button" className="btn btn-small btn-danger" data-testid="block" onClick={() => setOpen('block')}>
        <Ban aria-hidden="true" />
        {t('match.block')}
      </button>
      <button type="button" className="btn btn-small" data-testid="report" onClick={() => setOpen('report')}>
        <Flag aria-hidden="true" />
        {t('match.report')}
      </button>
      <SafetyDialogs memberId={memberId} name={name} open={open} onClose={close} onDone={() => { setOpen(null); onDone(); }} />
    </div>
  );
}
