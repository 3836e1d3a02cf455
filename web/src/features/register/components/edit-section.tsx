import { lazy, Suspense, useState, type ReactNode, type RefObject } from 'react';
import { Spinner } from '@/components/spinner';
import { navigate } from '@/lib/navigation';
import type { FirstStepForm, RegisterForm } from '@/features/register/hooks/use-register-form';
import { STEPS } from '@/features/register/lib/steps';
import { clearDraftStorage, getPhoto, isLocalToken } from '@/features/register/lib/draft-storage';

// The preview of how others will see the profile, on demand.
const DraftPreview = lazy(() => import('@/features/register/components/draft-preview'));

/** An approved member's edit of one section in place (`/register?section=about`, from /profile):
 *  that step alone (`children`), saved on its own, with a preview of how others will see the
 *  profile. Loaded only then: a new member's first screen never needs it. */
export default function EditSection({
  form,
  full,
  heading,
  ready,
  submitting,
  submitError,
  onSubmit,
  before,
  children,
}: {
  form: FirstStepForm;
  full: RegisterForm | null;
  heading: RefObject<HTMLHeadingElement | null>;
  /** The section asked for is the step shown. */
  ready: boolean;
  submitting: boolean;
  submitError: string | null;
  onSubmit(): void;
  before: ReactNode;
  children: ReactNode;
}) {
  const { t, draft, today } = form;
  const current = STEPS[form.step]!;
  const [previewing, setPreviewing] = useState(false);
  // What the member looks for counts at once; what others see goes to review first.
  const atOnce = current.id === 'conditions' || current.id === 'location';
  const photos = draft.photoNameList.filter(Boolean).map((n) => (isLocalToken(n) ? getPhoto(n) ?? '' : n)).filter(Boolean);
  return (
    <section className="page register-page edit-section" aria-labelledby="register-step-title" data-testid="edit-section" data-section={current.id}>
      {before}
      <a
        className="edit-back"
        href="/profile"
        data-testid="edit-cancel"
        onClick={(e) => {
          e.preventDefault();
          clearDraftStorage();
          void navigate('/profile');
        }}
      >
        {t('register.editCancel')}
      </a>
      <p className="eyebrow" data-testid="register-title">{t('register.editTitle')}</p>
      <h1 id="register-step-title" ref={heading} tabIndex={-1} data-step={current.id}>{t(`register.step.${current.id}`)}</h1>
      <p className="notice" data-testid="edit-notice">{t(atOnce ? 'register.sectionAtOnce' : 'register.sectionReviewed')}</p>
      {!ready ? (
        <Spinner />
      ) : (
        <form
          className="form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            onSubmit();
          }}
        >
          {children}
          {submitError ? (
            <p className="notice notice-error" role="alert" data-testid="submit-error">{submitError}</p>
          ) : null}
          <div className="form-nav">
            <button type="button" className="btn" aria-expanded={previewing} aria-controls="edit-preview" data-testid="edit-preview-toggle" onClick={() => setPreviewing((p) => !p)}>
              {t(previewing ? 'preview.hide' : 'preview.show')}
            </button>
            <button type="submit" className="btn btn-primary" data-testid="edit-save" disabled={submitting || !full}>
              {submitting ? t('register.submitting') : t('register.editSave')}
            </button>
          </div>
          <div id="edit-preview" hidden={!previewing}>
            {previewing ? (
              <section className="review-preview" aria-labelledby="edit-preview-title">
                <h2 id="edit-preview-title">{t('preview.title')}</h2>
                <Suspense fallback={<Spinner />}>
                  <DraftPreview draft={{ ...draft, photoNameList: photos }} cat={full?.cat ?? null} t={t} today={today} />
                </Suspense>
              </section>
            ) : null}
          </div>
        </form>
      )}
    </section>
  );
}
