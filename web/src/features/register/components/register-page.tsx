import { lazy, Suspense, useEffect, useEffectEvent, useMemo, useRef, useState, type ReactNode } from 'react';
import { useStore } from '@/lib/store';
import { appState } from '@/lib/app-state';
import { completeLocale, hasMessage, useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { Spinner } from '@/components/spinner';
import { useShownSearch } from '@/lib/navigation';
import { getUserInfo, type UserInfo } from '@/lib/auth';
import { useRegisterForm, type FirstStepForm, type RegisterForm } from '@/features/register/hooks/use-register-form';
import { errorsOfStep, firstFlaggedStep, flaggedFields, REVIEW_STEP, stepOfField, STEPS } from '@/features/register/lib/steps';
import { FlaggedFields } from '@/components/form';
import type { CodeCatalogues } from '@/lib/shared-queries';
import { isEmailConfirmed } from '@/features/register/lib/email-confirmed';
import { StepBasics } from '@/features/register/components/step-basics';
import { Welcome } from '@/features/register/components/welcome';
import { readRaw, StorageKey, writeRaw } from '@/lib/storage';

// Only the first steps are in the page's chunk: the others load on demand, and all of them are
// fetched once the form is usable (so a later step, or an offline submit, never waits for them).
const loadWork = () => import('@/features/register/components/step-work');
const loadLifestyle = () => import('@/features/register/components/step-lifestyle');
const loadAbout = () => import('@/features/register/components/step-about');
const loadTags = () => import('@/features/register/components/step-tags');
const loadPhotos = () => import('@/features/register/components/step-photos');
const loadConditions = () => import('@/features/register/components/step-conditions');
const loadLocation = () => import('@/features/register/components/step-location');
const loadReview = () => import('@/features/register/components/step-review');
// The submit code (uploads, retries) is needed only at the end, and is fetched with the steps.
const loadSubmit = () => import('@/features/register/api/submit-profile');
// A later step waits for the later part of the messages too (the first part has the first step's);
// should they fail to load, the step still opens (its labels then show their keys) rather than fail.
const withMessages = <T,>(load: () => Promise<T>) => Promise.all([load(), completeLocale().catch(() => {})]).then(([m]) => m);
// A resubmission's reason codes come through the data hook, which a new member's form never loads;
// with the rest of the messages, since a resubmission opens on a later step.
const ResubmitCodes = lazy(() => withMessages(() => import('@/features/register/components/resubmit-codes')));
const StepWork = lazy(() => withMessages(loadWork).then((m) => ({ default: m.StepWork })));
const StepLifestyle = lazy(() => withMessages(loadLifestyle).then((m) => ({ default: m.StepLifestyle })));
const StepAbout = lazy(() => withMessages(loadAbout).then((m) => ({ default: m.StepAbout })));
const StepTags = lazy(() => withMessages(loadTags).then((m) => ({ default: m.StepTags })));
const StepPhotos = lazy(() => withMessages(loadPhotos).then((m) => ({ default: m.StepPhotos })));
const StepConditions = lazy(() => withMessages(loadConditions).then((m) => ({ default: m.StepConditions })));
const StepLocation = lazy(() => withMessages(loadLocation).then((m) => ({ default: m.StepLocation })));
const StepReview = lazy(() => withMessages(loadReview).then((m) => ({ default: m.StepReview })));
// An approved member's edit of one section (from /profile), which a new member never sees.
const EditSection = lazy(() => import('@/features/register/components/edit-section'));

const PREFETCH_STEPS_AFTER_MS = 3000;

function prefetchSteps() {
  // The later steps' messages (the privacy note of the work step) come with them.
  completeLocale().catch(() => {});
  for (const load of [loadWork, loadLifestyle, loadAbout, loadTags, loadPhotos, loadConditions, loadLocation, loadReview, loadSubmit]) {
    load().catch(() => {});
  }
}

// Start on the welcome: step 1's heading takes the focus as the form opens.
let focusFirstStep = false;

/** /register: a newcomer's welcome, then the multi-step form, its draft kept in local storage,
 *  submitted as docs/design.md "Identity and sessions" and "Review" say. */
export default function RegisterPage() {
  const t = useT();
  const lineUserId = useStore(appState, (s) => s.liffUserProfile?.userId ?? '');
  const state = useRegisterForm(lineUserId);
  // Someone with no profile yet, once per browser (a draft begun is not welcomed again); the form
  // loads behind it.
  const newcomer = useStore(appState, (s) => s.reviewStatus == null);
  const [welcomed, setWelcomed] = useState(() => readRaw(StorageKey.registerWelcomed) !== null);
  if (newcomer && !welcomed) {
    return (
      <Welcome
        onStart={() => {
          writeRaw(StorageKey.registerWelcomed, '1');
          focusFirstStep = true;
          setWelcomed(true);
        }}
      />
    );
  }
  if (state.status === 'loading') return <Spinner />;
  if (state.status === 'error') {
    return (
      <section className="page">
        <h1>{t('register.title')}</h1>
        <p className="notice notice-error" role="alert">{t('register.coreFailed')}</p>
        <button type="button" className="btn" onClick={() => location.reload()}>{t('common.retry')}</button>
      </section>
    );
  }
  return <RegisterSteps form={state.form} full={state.full} />;
}

/** `full` is null until the core is loaded: only the first step is drawn without it, and a move
 *  away from it (Next, a step's name) waits for the core's rules. */
function RegisterSteps({ form, full }: { form: FirstStepForm; full: RegisterForm | null }) {
  const { step, t, reveal, errors, draft, lineUserId, today, needCore, goTo: moveTo } = form;
  const [submitting, setSubmitting] = useState(false);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const stepList = useRef<HTMLOListElement>(null);
  const first = useRef(true);
  const current = STEPS[step]!;
  const resubmitting = useStore(appState, (s) => s.reviewStatus?.status === 'REJECTED');
  // An approved member edits their profile here: some changes count at once, the
  // rest go to review as a revision; a revision sent back guides like a rejection.
  const editing = form.editing;
  // my-info was asked as the form opened (its revision is what the form was filled from).
  const [revision] = useState(() => (editing ? getUserInfo()?.revision ?? null : null));
  // A revision sent back is updated, as a rejected profile is.
  const updating = resubmitting || revision?.status === 'REJECTED';
  const { guide, waiting: waitingForCodes, loader: resubmitCodes } = useResubmitGuide(resubmitting, editing, revision);
  // An approved member edits one section in place (`?section=about`, from /profile): that step
  // alone, saved on its own, with a preview of how others will see the profile.
  const sectionId = new URLSearchParams(useShownSearch()).get('section');
  const section = editing ? STEPS.findIndex((s) => s.id === sectionId && s.id !== 'review') : -1;
  const inPlace = section >= 0;
  const opened = useRef(false);
  useEffect(() => {
    // The section asked for is the step shown (the form keeps its step in storage).
    if (inPlace && step !== section) {
      first.current = true;
      moveTo(section);
    }
  }, [inPlace, section, step, moveTo]);

  useEffect(() => {
    // A rejected member's form opens on the first step the reviewer asked to change, once.
    if (inPlace || !guide || opened.current) return;
    opened.current = true;
    if (step !== 0) return;
    // Opening there is no move of the member's: the heading keeps its focus for their own moves.
    first.current = true;
    moveTo(firstFlaggedStep(guide.flagged));
  }, [inPlace, guide, step, moveTo]);

  useEffect(() => {
    // The first touch of the form (a field's focus too), or a few seconds of idling, fetches the
    // core and the later steps: not part of what the first screen waits for, and there before
    // anyone presses Next.
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      needCore();
      prefetchSteps();
    };
    // The step's heading takes the focus as the form opens from the welcome (the app's move, not
    // the member's): no touch of the form, which would fetch 90 KB before step 1 is usable.
    const focused = (e: FocusEvent) => {
      if (e.target !== heading.current) go();
    };
    const timer = window.setTimeout(go, PREFETCH_STEPS_AFTER_MS);
    window.addEventListener('pointerdown', go, { once: true });
    window.addEventListener('keydown', go, { once: true });
    window.addEventListener('focusin', focused);
    return () => {
      window.clearTimeout(timer);
      window.removeEventListener('pointerdown', go);
      window.removeEventListener('keydown', go);
      window.removeEventListener('focusin', focused);
    };
  }, [needCore]);

  // A move asked for before the core was there is made once it is (with its rules' errors).
  const waiting = useRef<number | 'next' | null>(null);
  const goTo = (n: number) => {
    if (full) return moveTo(n);
    waiting.current = n;
    needCore();
  };

  useEffect(() => {
    // The named steps scroll sideways on a phone: the current one is brought to the middle.
    const list = stepList.current;
    const current = list?.querySelector<HTMLElement>('[aria-current="step"]');
    if (list && current) list.scrollLeft = current.offsetLeft - (list.clientWidth - current.offsetWidth) / 2;
  }, [step]);

  useEffect(() => {
    if (first.current) {
      first.current = false;
      if (!focusFirstStep) return;
      focusFirstStep = false;
    }
    heading.current?.focus();
  }, [step]);

  const focusFirstError = () => {
    requestAnimationFrame(() => {
      const el = document.querySelector<HTMLElement>('.field-invalid input, .field-invalid select, .field-invalid textarea, .field-invalid button, [data-testid="error-summary"]');
      el?.focus();
    });
  };

  const next = () => {
    if (!full) {
      waiting.current = 'next';
      needCore();
      return;
    }
    const stepErrors = errorsOfStep(errors, step);
    reveal([...current.fields, ...stepErrors]);
    if (stepErrors.length) {
      focusFirstError();
      return;
    }
    goTo(step + 1);
  };

  const resume = useEffectEvent(() => {
    const move = waiting.current;
    waiting.current = null;
    if (move === 'next') next();
    else if (move !== null) goTo(move);
  });
  const hasCore = full !== null;
  useEffect(() => {
    if (hasCore) resume();
  }, [hasCore]);

  const submit = async () => {
    if (!full) return;
    reveal('all');
    if (Object.keys(errors).some((k) => errors[k]!.length)) {
      // Editing one section: what needs attention elsewhere is named, not hidden off screen.
      const elsewhere = new Set(Object.keys(errors).filter((k) => errors[k]!.length).map(stepOfField).filter((i) => i !== step));
      if (inPlace && elsewhere.size) setSubmitError(t('register.elsewhere', { steps: [...elsewhere].map((i) => t(`register.step.${STEPS[i]!.id}`)).join(', ') }));
      focusFirstError();
      return;
    }
    if (draft.verifyMethod === 'COMPANY_EMAIL' && !isEmailConfirmed(full.core, draft.companyEmail)) {
      // The code step comes first; the work step shows it beside the address.
      const text = t('rule.email_not_confirmed');
      setSubmitError(text);
      toast.error(text);
      goTo(STEPS.findIndex((s) => s.id === 'work'));
      return;
    }
    setSubmitting(true);
    setSubmitError(null);
    // The submit code is fetched with the later steps; should its own download fail, the network did.
    const failure = await loadSubmit()
      .then((m) => m.sendRegistration({ core: full.core, draft, lineUserId, today, t, message: form.message }, editing ? 'edit' : resubmitting ? 'resubmit' : 'new'))
      .catch(() => t('error.network'));
    setSubmitting(false);
    if (failure) {
      setSubmitError(failure);
      toast.error(failure);
    }
  };

  if (waitingForCodes) {
    return (
      <>
        {resubmitCodes}
        <Spinner />
      </>
    );
  }

  const stepBody = (
    <Suspense fallback={<Spinner />}>
      {current.id === 'basics' ? <StepBasics form={form} /> : null}
      {current.id === 'work' && full ? <StepWork form={full} /> : null}
      {current.id === 'lifestyle' && full ? <StepLifestyle form={full} /> : null}
      {current.id === 'tags' && full ? <StepTags form={full} /> : null}
      {current.id === 'about' && full ? <StepAbout form={full} /> : null}
      {current.id === 'photos' && full ? <StepPhotos form={full} /> : null}
      {current.id === 'conditions' && full ? <StepConditions form={full} /> : null}
      {current.id === 'location' && full ? <StepLocation form={full} /> : null}
      {current.id === 'review' && full ? <StepReview form={full} submitError={submitError} submitting={submitting} onSubmit={() => void submit()} /> : null}
    </Suspense>
  );

  if (inPlace) {
    return (
      <FlaggedFields value={guide ? { fields: guide.flagged, label: t('register.flagged') } : NOTHING_FLAGGED}>
        <Suspense fallback={<Spinner />}>
          <EditSection
            form={form}
            full={full}
            heading={heading}
            ready={step === section}
            submitting={submitting}
            submitError={submitError}
            onSubmit={() => void submit()}
            before={resubmitCodes}
          >
            {stepBody}
          </EditSection>
        </Suspense>
      </FlaggedFields>
    );
  }

  return (
    <FlaggedFields value={guide ? { fields: guide.flagged, label: t('register.flagged') } : NOTHING_FLAGGED}>
    <section className="page register-page" aria-labelledby="register-step-title">
      {resubmitCodes}
      <p className="eyebrow" data-testid="register-title">{t(updating ? 'register.updateTitle' : editing ? 'register.editTitle' : 'register.title')}</p>
      {resubmitting ? <p className="notice" data-testid="resubmit-notice">{t('register.resubmitNotice')}</p> : null}
      {editing ? <p className="notice" data-testid="edit-notice">{t('register.editNotice')}</p> : null}
      {guide && (guide.reasons.length || guide.note) ? (
        <div className="card resubmit-reasons" data-testid="resubmit-reasons">
          <h2>{t('register.reasonsTitle')}</h2>
          <ul>
            {guide.reasons.map((code) => (
              <li key={code}>{hasMessage(`review.reject.${code}`) ? t(`review.reject.${code}`) : code}</li>
            ))}
          </ul>
          {guide.note ? <p className="muted">{t('register.reasonNote', { note: guide.note })}</p> : null}
        </div>
      ) : null}
      <nav aria-label={t('register.steps')} className="stepper">
        <p className="stepper-count" aria-live="polite">{t('register.stepOf', { n: step + 1, total: STEPS.length })}</p>
        <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(((step + 1) / STEPS.length) * 100)} aria-label={t('register.progress')}>
          <span style={{ width: `${((step + 1) / STEPS.length) * 100}%` }} />
        </div>
        <ol className="stepper-list" ref={stepList}>
          {STEPS.map((s, i) => {
            // A step left behind (or every step, from the review) with something to fix is marked.
            const hasErrors = i !== REVIEW_STEP && (i < step || step === REVIEW_STEP) && errorsOfStep(errors, i).length > 0;
            return (
              <li key={s.id}>
                <button
                  type="button"
                  className={`step-dot${i === step ? ' step-current' : ''}${i < step ? ' step-done' : ''}${hasErrors ? ' step-attention' : ''}`}
                  aria-current={i === step ? 'step' : undefined}
                  onClick={() => goTo(i)}
                  data-testid={`step-${s.id}`}
                >
                  <span className="step-num" aria-hidden="true">{i + 1}</span>
                  <span className="step-name">{t(`register.step.${s.id}`)}</span>
                  {hasErrors ? <span className="sr-only"> ({t('register.needsAttention')})</span> : null}
                </button>
              </li>
            );
          })}
        </ol>
      </nav>
      <h1 id="register-step-title" ref={heading} tabIndex={-1} data-step={current.id}>{t(`register.step.${current.id}`)}</h1>
      <p className="lead">{t(`register.stepLead.${current.id}`)}</p>
      <form
        className="form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (step === REVIEW_STEP) void submit();
          else next();
        }}
      >
        {stepBody}
        {step !== REVIEW_STEP ? (
          <div className="form-nav">
            <button type="button" className="btn" onClick={() => goTo(step - 1)} disabled={step === 0}>{t('common.back')}</button>
            {form.returnToReview ? (
              <button type="button" className="btn btn-primary btn-return" onClick={() => goTo(REVIEW_STEP)} data-testid="back-to-review">{t('register.backToReview')}</button>
            ) : null}
            <button type="submit" className={form.returnToReview ? 'btn' : 'btn btn-primary'} data-testid="next">{t('common.next')}</button>
          </div>
        ) : (
          <div className="form-nav">
            <button type="button" className="btn" onClick={() => goTo(step - 1)}>{t('common.back')}</button>
          </div>
        )}
      </form>
    </section>
    </FlaggedFields>
  );
}

const NOTHING_FLAGGED = { fields: new Set<string>(), label: '' };

type Revision = NonNullable<UserInfo['revision']>;

/** What a REJECTED member's form (or an approved member's, whose revision was sent back) shows
 *  first: the reasons and note of the decision, and the fields they concern (the `reject`
 *  catalogue's, kizuna-core's). `guide` is null while neither or until the catalogue is there;
 *  `loader` is what loads the catalogue, to render on the page. */
function useResubmitGuide(rejected: boolean, editing: boolean, revision: Revision | null): { guide: { reasons: string[]; note: string | null; flagged: Set<string> } | null; waiting: boolean; loader: ReactNode } {
  const reviewStatus = useStore(appState, (s) => s.reviewStatus);
  const status = useMemo(
    () => (editing ? (revision?.status === 'REJECTED' ? { reasons: revision.reasons, note: revision.note } : null) : reviewStatus),
    [editing, revision, reviewStatus],
  );
  const resubmitting = rejected || (editing && status != null);
  // undefined until the codes are settled, null when they could not be had.
  const [codes, setCodes] = useState<CodeCatalogues | null | undefined>(undefined);
  const guide = useMemo(() => {
    if (!resubmitting || !codes) return null;
    const reasons = Array.isArray(status?.reasons) ? status.reasons.filter((r): r is string => typeof r === 'string') : [];
    const note = typeof status?.note === 'string' && status.note ? status.note : null;
    return { reasons, note, flagged: flaggedFields(reasons, codes.reject) };
  }, [resubmitting, codes, status]);
  // Only a resubmitting member asks for the codes, and their form opens once they are settled:
  // on the step the reviewer asked to change, its fields marked, rather than moving there later.
  const loader = resubmitting ? (
    <Suspense fallback={null}>
      <ResubmitCodes onSettled={setCodes} />
    </Suspense>
  ) : null;
  return { guide, waiting: resubmitting && codes === undefined, loader };
}
