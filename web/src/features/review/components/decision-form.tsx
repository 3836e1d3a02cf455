import { useState } from 'react';
import { hasMessage, useT } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import type { Catalogues } from '@/lib/wasm';
import {
  actionsFor,
  picksEmployer,
  reviewApi,
  type CodeCatalogues,
  type DecisionAction,
  type ReviewView,
} from '@/features/review/api/review-api';

/** The reviewer's decision on the open profile (or its revision): the actions kizuna-core allows
 *  from its status, the reasons of the chosen one's catalogue, the employer when the core asks the
 *  reviewer for it, a note. A 409 (someone decided first, or the member changed the profile) is
 *  shown as such; field errors land beside their field. */
export function DecisionForm({ view, codes, employers, disabled, onDone }: { view: ReviewView; codes: CodeCatalogues | null; employers: Catalogues['employers']; disabled: boolean; onDone: () => void }) {
  const t = useT();
  const actions = actionsFor(view.status, view.revision ?? null);
  const [action, setAction] = useState<DecisionAction | null>(actions.length === 1 ? actions[0]! : null);
  const [reasons, setReasons] = useState<string[]>([]);
  const [note, setNote] = useState('');
  const [employer, setEmployer] = useState('');
  const [busy, setBusy] = useState(false);
  const [conflict, setConflict] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [problem, setProblem] = useState<string | null>(null);

  if (!actions.length) return null;
  const catalogue = action === 'REJECT' ? codes?.reject ?? [] : action === 'SUSPEND' ? codes?.suspend ?? [] : [];
  // The employer goes on record (the member's colleagues are kept apart by it).
  const picking = action === 'APPROVE' && picksEmployer(view);
  const toggle = (code: string) =>
    setReasons((prev) => (action === 'SUSPEND' ? [code] : prev.includes(code) ? prev.filter((c) => c !== code) : [...prev, code]));

  const submit = async () => {
    if (!action) return;
    setBusy(true);
    setConflict(null);
    setProblem(null);
    setFieldErrors({});
    try {
      const common = {
        action,
        reasons: catalogue.length ? reasons : [],
        note: note.trim() || undefined,
        employer: picking && employer ? employer : undefined,
      };
      if (view.revision != null) await reviewApi.decideRevision(view.profileId, { ...common, revision: view.revision });
      else await reviewApi.decide(view.profileId, { ...common, version: view.version });
      onDone();
    } catch (err) {
      logger.warn(`decision: ${describeError(err)}`);
      if (err instanceof ApiError && err.status === 409) setConflict(err.causeText);
      else if (err instanceof ApiError && err.fields) {
        setFieldErrors(err.fields);
        setProblem(err.causeText);
      } else setProblem(err instanceof ApiError ? err.causeText : describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card decision-form" data-testid="decision-form" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h3>{t('console.decide')}</h3>
      <fieldset className="chip-row">
        <legend className="sr-only">{t('console.action')}</legend>
        {actions.map((a) => (
          <label key={a} className={`chip${action === a ? ' chip-on' : ''}`}>
            <input type="radio" name="action" value={a} checked={action === a} onChange={() => { setAction(a); setReasons([]); }} />
            <span>{t(`console.action.${a}`)}</span>
          </label>
        ))}
      </fieldset>
      {catalogue.length ? (
        <fieldset className={`field${fieldErrors.reasons ? ' field-invalid' : ''}`} data-field="reasons">
          <legend className="field-label">{action === 'SUSPEND' ? t('console.suspendReason') : t('console.rejectReasons')}</legend>
          {catalogue.map((c) => (
            <label key={c.code} className="check">
              <input type={action === 'SUSPEND' ? 'radio' : 'checkbox'} name="reason" value={c.code} checked={reasons.includes(c.code)} onChange={() => toggle(c.code)} />
              <span>{hasMessage(c.key) ? t(c.key) : c.code}</span>
            </label>
          ))}
          {fieldErrors.reasons ? <p className="field-error" role="alert">{t(`rule.${fieldErrors.reasons[0]}`)}</p> : null}
        </fieldset>
      ) : null}
      {picking ? (
        <div className={`field${fieldErrors.employer ? ' field-invalid' : ''}`} data-field="employer">
          <label className="field-label" htmlFor="decision-employer">{t('console.employerPick')}</label>
          <p className="field-hint">{t('console.employerPickHint')}</p>
          <select id="decision-employer" className="input" value={employer} onChange={(e) => setEmployer(e.target.value)} data-testid="decision-employer">
            <option value="">{t('console.employerChoose')}</option>
            {employers.map((e) => (
              <option key={e.id} value={e.id}>{e.name}</option>
            ))}
          </select>
          {fieldErrors.employer ? <p className="field-error" role="alert">{t(`rule.${fieldErrors.employer[0]}`)}</p> : null}
        </div>
      ) : null}
      {action === 'REJECT' || action === 'SUSPEND' ? (
        <div className={`field${fieldErrors.note ? ' field-invalid' : ''}`} data-field="note">
          <label className="field-label" htmlFor="decision-note">{t('console.note')}</label>
          <p className="field-hint">{t('console.noteHint')}</p>
          <textarea id="decision-note" className="input textarea" rows={3} value={note} onChange={(e) => setNote(e.target.value)} />
          {fieldErrors.note ? <p className="field-error" role="alert">{t(`rule.${fieldErrors.note[0]}`)}</p> : null}
        </div>
      ) : null}
      {conflict ? (
        <div className="notice notice-error" role="alert" data-testid="decision-conflict">
          <strong>{t('console.conflict')}</strong> {conflict}
        </div>
      ) : null}
      {problem ? <p className="notice notice-error" role="alert" data-testid="decision-error">{problem}</p> : null}
      <button type="submit" className="btn btn-primary" disabled={busy || disabled || !action} data-testid="decision-submit">
        {busy ? t('common.saving') : t('console.submitDecision')}
      </button>
    </form>
  );
}
