import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import firstStep from 'virtual:core-first-step';
import { loadCore, todayIso, type Catalogues, type Core, type FieldErrors, type FirstStepCatalogue, type RegisterDraft } from '@/lib/wasm';
import { useT, type TFunction } from '@/lib/i18n';
import { describeError, logger } from '@/lib/logger';
import { appState } from '@/lib/app-state';
import { hasStoredDraft, loadDraft, loadStep, prunePhotos, saveDraft, saveStep } from '@/features/register/lib/draft-storage';
import { baseField, REVIEW_STEP, STEPS } from '@/features/register/lib/steps';

/** The form as the first step uses it: drawn before the core is loaded (a new member's first
 *  screen), with what the build asked of the core (virtual:core-first-step). */
export interface FirstStepForm {
  cat: FirstStepCatalogue;
  draft: RegisterDraft;
  /** The core's errors of the draft; none until the core is loaded. */
  errors: FieldErrors;
  step: number;
  lineUserId: string;
  today: string;
  t: TFunction;
  update(patch: Partial<RegisterDraft>): void;
  touch(field: string): void;
  /** The translated first error of a field (and its sub-keys), when it should be shown. */
  errorOf(field: string): string | null;
  /** Show every error of these fields (Next / submit pressed). */
  reveal(fields: string[] | 'all'): void;
  goTo(step: number): void;
  /** The member left the review step for another step ("Edit"): that step offers the way back. */
  returnToReview: boolean;
  message(field: string, code: string): string;
  /** Whether the core requires the field (asked of the core with an empty draft). */
  req(field: string): boolean;
  /** Start loading the core, if it is not loaded or loading yet (the first touch of the form, a
   *  few seconds of idling, or a move that needs its rules). */
  needCore(): void;
  /** An APPROVED member editing their profile: the identity is read-only. */
  editing: boolean;
}

/** The whole form, once the core is loaded: every step, the submit. */
export interface RegisterForm extends FirstStepForm {
  core: Core;
  cat: Catalogues;
}

/** A new member's form (nothing stored, the first step, not a resubmission) is drawn before the
 *  core is loaded; any other waits for the core to repair the stored draft first. */
function startsFresh(): boolean {
  const status = appState.get().reviewStatus?.status;
  return !hasStoredDraft() && loadStep(STEPS.length) === 0 && status !== 'REJECTED' && status !== 'APPROVED';
}

export function useRegisterForm(lineUserId: string):
  | { status: 'loading' }
  | { status: 'error'; error: string }
  | { status: 'ready'; form: FirstStepForm; full: RegisterForm | null } {
  const t = useT();
  const [fresh] = useState(startsFresh);
  const [core, setCore] = useState<Core | null>(null);
  const [wanted, setWanted] = useState(!fresh);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [draft, setDraft] = useState<RegisterDraft | null>(() => (fresh ? structuredClone(firstStep.draft) : null));
  const [step, setStep] = useState(0);
  const stepRef = useRef(0);
  const [returnToReview, setReturnToReview] = useState(false);
  const [touched, setTouched] = useState<Set<string>>(() => new Set());
  const [revealAll, setRevealAll] = useState(false);
  const today = useMemo(() => todayIso(), []);
  const draftRef = useRef<RegisterDraft | null>(draft);

  useEffect(() => {
    if (!wanted) return;
    let alive = true;
    loadCore()
      .then(async (c) => {
        if (fresh) {
          // The member may be typing already: the draft on screen stays.
          if (alive) setCore(c);
          return;
        }
        // A rejected member resubmits, an approved one edits: the same filled form.
        const status = appState.get().reviewStatus?.status;
        if (status === 'REJECTED' || status === 'APPROVED') {
          // Come straight here rather than through "Edit and resubmit": the same filled form. Its
          // module loads only for a rejected member, so a new member's first render does not grow.
          await import('@/lib/resubmission')
            .then((m) => m.startResubmission({ keepDraft: true }))
            .catch((err: unknown) => logger.warn(`resubmission: ${describeError(err)}`));
        }
        if (!alive) return;
        const result = loadDraft(c);
        if (result.repaired.length || result.dropped.length || result.discarded) {
          logger.info(`draft repaired: repaired=${result.repaired.join(',')} dropped=${result.dropped.join(',')} discarded=${result.discarded}`);
        }
        draftRef.current = result.draft;
        setDraft(result.draft);
        stepRef.current = loadStep(STEPS.length);
        setStep(stepRef.current);
        setCore(c);
      })
      .catch((err: unknown) => {
        logger.error(`wasm core failed to load: ${describeError(err)}`);
        if (alive) setLoadError(String(err));
      });
    return () => {
      alive = false;
    };
  }, [wanted, fresh]);

  const needCore = useCallback(() => setWanted(true), []);

  const errors = useMemo<FieldErrors>(() => {
    if (!core || !draft) return {};
    try {
      return core.validateDraft(draft, lineUserId, today);
    } catch (err) {
      logger.error(`validateDraft failed: ${describeError(err)}`);
      return {};
    }
  }, [core, draft, lineUserId, today]);

  const update = useCallback((patch: Partial<RegisterDraft>) => {
    const next = { ...(draftRef.current as RegisterDraft), ...patch };
    draftRef.current = next;
    setDraft(next);
    saveDraft(next);
    if (patch.photoNameList || patch.verifyTempFileName !== undefined) {
      prunePhotos([...next.photoNameList, next.verifyTempFileName].filter((n) => n.startsWith('local-')));
    }
    setTouched((prev) => {
      const s = new Set(prev);
      for (const k of Object.keys(patch)) s.add(k === 'fertilityPlanTagId' ? 'fertilityPlanTagIds' : k);
      return s;
    });
  }, []);

  const touch = useCallback((field: string) => setTouched((prev) => (prev.has(field) ? prev : new Set(prev).add(field))), []);

  const reveal = useCallback((fields: string[] | 'all') => {
    if (fields === 'all') setRevealAll(true);
    else setTouched((prev) => new Set([...prev, ...fields]));
  }, []);

  const goTo = useCallback((n: number) => {
    const bounded = Math.max(0, Math.min(STEPS.length - 1, n));
    if (bounded === REVIEW_STEP) setReturnToReview(false);
    else if (stepRef.current === REVIEW_STEP) setReturnToReview(true);
    stepRef.current = bounded;
    setStep(bounded);
    saveStep(bounded);
    window.scrollTo?.(0, 0);
  }, []);

  const cat = useMemo(() => (core ? core.catalogues() : null), [core]);
  const editing = appState.get().reviewStatus?.status === 'APPROVED';
  const requiredFields = useMemo(() => {
    if (!core) return new Set(firstStep.required);
    const empty = core.validateDraft(core.emptyDraft(), lineUserId, today);
    return new Set(Object.keys(empty).filter((k) => empty[k]!.includes('required')));
  }, [core, lineUserId, today]);

  if (loadError) return { status: 'error', error: loadError };
  if (!draft) return { status: 'loading' };

  const message = (field: string, code: string) => {
    const limits = (cat ?? firstStep).limits[baseField(field)] ?? {};
    return t(`rule.${code}`, { min: limits.min ?? '', max: limits.max ?? '' });
  };

  const errorOf = (field: string) => {
    const keys = Object.keys(errors).filter((k) => k === field || k.startsWith(`${field}.`));
    const visible = revealAll || touched.has(field) || keys.some((k) => touched.has(k));
    if (!visible) return null;
    for (const k of keys) {
      const code = errors[k]?.[0];
      if (code) return message(k, code);
    }
    return null;
  };

  const form: FirstStepForm = {
    cat: cat ?? firstStep,
    draft, errors, step, lineUserId, today, t, update, touch, errorOf, reveal, goTo, returnToReview, message, needCore,
    req: (f) => requiredFields.has(f),
    editing,
  };
  return { status: 'ready', form, full: core && cat ? { ...form, core, cat } : null };
}
