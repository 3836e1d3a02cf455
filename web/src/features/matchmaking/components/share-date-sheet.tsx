import { useEffect, useId, useState } from 'react';
import { lineShare } from 'virtual:core-rules';
import { useLocale, useT } from '@/lib/i18n';
import { getConfig } from '@/lib/config';
import { canShare, OUTCOME_KEYS, refusal, shareWithOneFriend, type ShareOutcome } from '@/lib/line-share';
import { logger } from '@/lib/logger';
import { Dialog, type FocusTarget } from '@/features/matchmaking/components/dialog';
import { dateMessage, localInputValue, planProblems, planRange, planTime, type DatePlan, type PlanProblems } from '@/features/matchmaking/lib/share-date';

/** "Share my date", from a chat's menu: where and when the member meets `nickname`, sent to ONE
 *  LINE friend of their choice through LINE's share target picker, with a link to the safety
 *  tips. The match is not told and nothing of the plan reaches Kizuna's server: it lives in this
 *  sheet's state until the sheet closes. Every outcome of the picker is said in the sheet. */
export function ShareDateSheet({ open, nickname, onClose, returnFocus }: { open: boolean; nickname: string; onClose: () => void; returnFocus?: FocusTarget }) {
  const t = useT();
  const locale = useLocale();
  const ids = useId();
  const [plan, setPlan] = useState<DatePlan>({ place: '', when: '' });
  const [problems, setProblems] = useState<PlanProblems>({});
  const [available, setAvailable] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<ShareOutcome | null>(null);

  // Whether this LINE can share at all, asked as the sheet opens: a member is told before typing.
  useEffect(() => {
    if (!open) return;
    let live = true;
    void canShare().then((yes) => {
      if (live) setAvailable(yes);
    });
    return () => {
      live = false;
    };
  }, [open]);

  const close = () => {
    // Closed, the plan is gone: a new sheet starts empty.
    setPlan({ place: '', when: '' });
    setProblems({});
    setOutcome(null);
    setAvailable(null);
    onClose();
  };

  const now = new Date();
  const { min, max } = planRange(now);

  const send = async () => {
    const found = planProblems(plan, new Date());
    setProblems(found);
    if (found.place || found.when) return;
    const liffId = getConfig()?.liffId ?? '';
    const message = dateMessage({ nickname, place: plan.place, time: planTime(plan.when)!, locale, liffId, t });
    const refused = refusal(message);
    if (refused) {
      // The limits make this unreachable; should they drift, LINE is not asked to refuse it.
      logger.error(`share date: the bubble breaks LINE's limits (${refused})`);
      setOutcome('failed');
      return;
    }
    setBusy(true);
    setOutcome(null);
    try {
      const result = await shareWithOneFriend(message);
      setOutcome(result);
      if (result === 'unavailable') setAvailable(false);
    } finally {
      setBusy(false);
    }
  };

  const placeError = problems.place ? t(`match.shareDate.${problems.place}`, { max: lineShare.datePlace.max }) : null;
  const whenError = problems.when
    ? t(`match.shareDate.${problems.when}`, { hours: Math.round(lineShare.datePastSecs / 3600), days: Math.round(lineShare.dateAheadSecs / 86400) })
    : null;
  const sent = outcome === 'sent';
  const shownOutcome = outcome ?? (available === false ? 'unavailable' : null);

  return (
    <Dialog open={open} title={t('match.shareDate.title')} onClose={close} testId="share-date" initialFocus="title" describedBy={`${ids}-intro`} returnFocus={returnFocus}>
      <p id={`${ids}-intro`}>{t('match.shareDate.intro', { name: nickname })}</p>
      {sent ? null : (
        <form
          className="share-date-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <div className={`field${placeError ? ' field-invalid' : ''}`}>
            <label className="field-label" htmlFor={`${ids}-place`}>{t('match.shareDate.place')}</label>
            <input
              id={`${ids}-place`}
              className="input"
              data-testid="share-date-place"
              type="text"
              autoComplete="off"
              enterKeyHint="next"
              maxLength={lineShare.datePlace.max}
              value={plan.place}
              placeholder={t('match.shareDate.placeHint')}
              aria-invalid={Boolean(placeError) || undefined}
              aria-describedby={placeError ? `${ids}-place-error` : undefined}
              onChange={(e) => setPlan((p) => ({ ...p, place: e.target.value }))}
            />
            {placeError ? <p className="field-error" id={`${ids}-place-error`} role="alert">{placeError}</p> : null}
          </div>
          <div className={`field${whenError ? ' field-invalid' : ''}`}>
            <label className="field-label" htmlFor={`${ids}-when`}>{t('match.shareDate.when')}</label>
            <input
              id={`${ids}-when`}
              className="input"
              data-testid="share-date-when"
              type="datetime-local"
              min={localInputValue(min)}
              max={localInputValue(max)}
              value={plan.when}
              aria-invalid={Boolean(whenError) || undefined}
              aria-describedby={whenError ? `${ids}-when-error` : undefined}
              onChange={(e) => setPlan((p) => ({ ...p, when: e.target.value }))}
            />
            {whenError ? <p className="field-error" id={`${ids}-when-error`} role="alert">{whenError}</p> : null}
          </div>
          <p className="muted">{t('match.shareDate.gets', { name: nickname })}</p>
        </form>
      )}
      <p className={`share-outcome${shownOutcome ? ` ${shownOutcome}` : ''}`} role="status" data-testid="share-date-outcome" data-outcome={shownOutcome ?? ''}>
        {shownOutcome ? t(OUTCOME_KEYS[shownOutcome]) : ''}
      </p>
      <div className="mm-dialog-actions">
        {sent ? (
          <button type="button" className="btn btn-primary" data-testid="share-date-done" onClick={close}>{t('match.shareDate.done')}</button>
        ) : (
          <>
            <button type="button" className="btn" onClick={close}>{t('match.cancel')}</button>
            <button type="button" className="btn btn-primary" data-testid="share-date-send" disabled={busy || available !== true} onClick={() => void send()}>
              {t('match.shareDate.send')}
            </button>
          </>
        )}
      </div>
    </Dialog>
  );
}
