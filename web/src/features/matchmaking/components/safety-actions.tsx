import { useState } from 'react';
import { hasMessage, useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { matchmakingApi, type CodeEntry } from '@/features/matchmaking/api/matchmaking-api';
import { reportProblem } from '@/features/matchmaking/lib/member-facts';
import { Dialog } from '@/features/matchmaking/components/dialog';

/** Block and Report (reasons from the server's /catalogue/codes), each confirmed in a dialog.
 *  Either one makes both members disappear from each other; `onDone` then leaves the page. */
export function SafetyActions({ memberId, name, onDone }: { memberId: number; name: string; onDone: () => void }) {
  const t = useT();
  const [open, setOpen] = useState<'block' | 'report' | null>(null);
  const [busy, setBusy] = useState(false);
  const [reasons, setReasons] = useState<CodeEntry[] | null>(null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<'reasons' | 'text' | null>(null);

  const openReport = async () => {
    setOpen('report');
    setProblem(null);
    if (!reasons) {
      try {
        setReasons(await matchmakingApi.reportReasons());
      } catch (err) {
        logger.warn(`report reasons unavailable: ${describeError(err)}`);
        toast.error(t('match.loadFailed'));
        setOpen(null);
      }
    }
  };

  const block = async () => {
    setBusy(true);
    try {
      await matchmakingApi.block(memberId);
      toast.success(t('match.blocked', { name }));
      setOpen(null);
      onDone();
    } catch (err) {
      logger.warn(`block failed: ${describeError(err)}`);
      toast.error(t('match.loadFailed'));
    } finally {
      setBusy(false);
    }
  };

  const report = async () => {
    const p = reportProblem(chosen, text);
    setProblem(p);
    if (p) return;
    setBusy(true);
    try {
      await matchmakingApi.report(memberId, chosen, text.trim() || undefined);
      toast.success(t('match.reportSent', { name }));
      setOpen(null);
      onDone();
    } catch (err) {
      logger.warn(`report failed: ${describeError(err)}`);
      toast.error(t('match.loadFailed'));
    } finally {
      setBusy(false);
    }
  };

  const toggle = (code: string) => setChosen((c) => (c.includes(code) ? c.filter((x) => x !== code) : [...c, code]));

  return (
    <div className="mm-safety">
      <button type="button" className="btn btn-small btn-danger" data-testid="block" onClick={() => setOpen('block')}>
        {t('match.block')}
      </button>
      <button type="button" className="btn btn-small" data-testid="report" onClick={() => void openReport()}>
        {t('match.report')}
      </button>

      <Dialog open={open === 'block'} title={t('match.block')} onClose={() => setOpen(null)} testId="block-dialog">
        <p>{t('match.blockConfirm', { name })}</p>
        <div className="mm-dialog-actions">
          <button type="button" className="btn" onClick={() => setOpen(null)}>{t('match.cancel')}</button>
          <button type="button" className="btn btn-primary" data-testid="block-confirm" disabled={busy} onClick={() => void block()}>
            {t('match.block')}
          </button>
        </div>
      </Dialog>

      <Dialog open={open === 'report'} title={t('match.reportTitle', { name })} onClose={() => setOpen(null)} testId="report-dialog">
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
          <textarea value={text} maxLength={1000} rows={3} onChange={(e) => setText(e.target.value)} aria-invalid={problem === 'text' || undefined} />
        </label>
        <p className="muted">{t('match.reportTextHint')}</p>
        {problem === 'text' ? <p className="field-error" role="alert">{t('match.reportNeedText')}</p> : null}
        <div className="mm-dialog-actions">
          <button type="button" className="btn" onClick={() => setOpen(null)}>{t('match.cancel')}</button>
          <button type="button" className="btn btn-primary" data-testid="report-confirm" disabled={busy} onClick={() => void report()}>
            {t('match.reportSend')}
          </button>
        </div>
      </Dialog>
    </div>
  );
}
