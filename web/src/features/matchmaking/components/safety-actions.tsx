import { useCallback, useEffect, useState } from 'react';
import { reportText } from 'virtual:core-rules';
import { Ban, Flag } from 'lucide-react';
import { hasMessage, useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { invalidate, queryKeys } from '@/lib/query';
import { describeError, logger } from '@/lib/logger';
import { matchmakingApi, type CodeEntry } from '@/features/matchmaking/api/matchmaking-api';
import { reportProblem } from '@/features/matchmaking/lib/member-facts';
import { Dialog } from '@/features/matchmaking/components/dialog';

export type SafetyKind = 'block' | 'report' | 'unmatch';

/** Block, Report (reasons from the server's /catalogue/codes) and, in a match, Unmatch: each
 *  confirmed in a dialog that says what happens. `open` names the dialog shown; `onDone` is
 *  called once it is done (the pair no longer sees each other's match, or anything at all). */
export function SafetyDialogs({ memberId, name, matchId, open, onClose, onDone }: {
  memberId: number;
  name: string;
  matchId?: number | null;
  open: SafetyKind | null;
  onClose: () => void;
  onDone: (kind: SafetyKind) => void;
}) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [reasons, setReasons] = useState<CodeEntry[] | null>(null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<'reasons' | 'text' | null>(null);

  useEffect(() => {
    if (open !== 'report' || reasons) return;
    let alive = true;
    matchmakingApi.reportReasons().then(
      (list) => alive && setReasons(list),
      (err: unknown) => {
        logger.warn(`report reasons unavailable: ${describeError(err)}`);
        toast.error(t('match.loadFailed'));
        if (alive) onClose();
      },
    );
    return () => {
      alive = false;
    };
  }, [open, reasons, onClose, t]);

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
    const p = reportProblem(chosen, text);
    setProblem(p);
    if (p) return;
    void act('report', () => matchmakingApi.report(memberId, chosen, text.trim() || undefined), t('match.reportSent', { name }));
  };

  const toggle = (code: string) => setChosen((c) => (c.includes(code) ? c.filter((x) => x !== code) : [...c, code]));

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

      <Dialog open={open === 'report'} title={t('match.reportTitle', { name })} onClose={onClose} testId="report-dialog">
        <fieldset className="mm-reasons" aria-invalid={problem === 'reasons' || undefined}>
          <legend>{t('match.reportReasons')}</legend>
          {(reasons ?? []).map((r) => (
            <label key={r.code} className="mm-reason">
              <input type="checkbox" value={r.code} checked={chosen.includes(r.code)} onChange={() => toggle(r.code)} />
              {hasMessage(r.key) ? t(r.key) : r.code}
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
          <button type="button" className="btn btn-primary" data-testid="report-confirm" disabled={busy} onClick={report}>
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
