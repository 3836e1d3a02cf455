import '@/features/register/components/register-steps.css';
import { useEffect, useRef } from 'react';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';
import { formatDate, useLocale } from '@/lib/i18n';
import { STEPS, errorsInStepOrder, stepOfField, REVIEW_STEP } from '@/features/register/lib/steps';
import { labelOf } from '@/lib/catalogue-labels';
import { previewOf } from '@/lib/profile-preview';
import { ProfilePreview } from '@/components/profile-preview';
import { Image } from '@/components/image';
import { getPhoto, isLocalToken } from '@/features/register/lib/draft-storage';

/** A draft's photo as the browser can show it: a local photo's data URL until it is uploaded. */
const shown = (name: string) => (isLocalToken(name) ? getPhoto(name) ?? '' : name);

/** Review: what will be sent, per step with an edit link, every remaining error, and the profile
 *  as others will see it. */
export function StepReview({ form, submitError, submitting, onSubmit }: { form: RegisterForm; submitError: string | null; submitting: boolean; onSubmit: () => void }) {
  const { draft, errors, t, cat, goTo, message, today } = form;
  const locale = useLocale();
  const errorBox = useRef<HTMLDivElement>(null);
  const retry = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    // A failed submit: the error and "Try submitting again" are brought into view together, the
    // action focused (the toast and the error box push it below the fold on a phone).
    if (!submitError || submitting) return;
    errorBox.current?.scrollIntoView({ block: 'center' });
    retry.current?.focus({ preventScroll: true });
  }, [submitError, submitting]);
  const errorKeys = errorsInStepOrder(errors);
  const photos = draft.photoNameList.filter(Boolean).map(shown).filter(Boolean);
  const rows: [number, string, string][] = [
    [0, 'nickname', draft.nickname],
    [0, 'birthday', draft.birthday ? formatDate(draft.birthday, locale) : ''],
    [0, 'gender', labelOf(cat.choices.gender, draft.gender, t)],
    [1, 'occupation', draft.occupation],
    [1, 'verifyMethod', labelOf(cat.choices.verifyMethod, draft.verifyMethod, t)],
    [2, 'marriageRecord', labelOf(cat.choices.marriageRecord, draft.marriageRecord, t)],
    [4, 'aboutMe', draft.aboutMe],
    [5, 'photoNameList', photos.length ? t('register.photoCount', { n: photos.length }) : ''],
    [7, 'city', cat.cities.find((c) => c.code === draft.city) ? t(cat.cities.find((c) => c.code === draft.city)!.key) : ''],
  ];
  return (
    <>
      {errorKeys.length ? (
        <div className="error-summary" role="alert" aria-labelledby="error-summary-title" tabIndex={-1} data-testid="error-summary">
          <h3 id="error-summary-title">{t('register.errorSummary', { n: errorKeys.length })}</h3>
          <ul>
            {errorKeys.map((k) => {
              const step = stepOfField(k);
              return (
                <li key={k}>
                  {/* Where on its own line, what is wrong below it: at 320 px the two in one run
                      broke over three lines. */}
                  <button type="button" className="link-button error-link" onClick={() => goTo(step)} disabled={step === REVIEW_STEP}>
                    <strong>
                      {t(`register.step.${STEPS[step]!.id}`)} · {fieldLabel(k, t)}:
                    </strong>{' '}
                    <span>{message(k, errors[k]![0]!)}</span>
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      ) : null}
      <dl className="review-list">
        {rows.map(([step, field, value]) => (
          <div key={field} className="review-item">
            <dt>{t(`field.${field}`)}</dt>
            <dd>
              {field === 'photoNameList' && photos.length ? (
                <ul className="review-photos" aria-label={value}>
                  {photos.map((src, i) => (
                    <li key={`${i}-${src.slice(-24)}`}>
                      <Image src={src} alt={t('preview.photoAlt', { n: i + 1 })} width={56} height={70} />
                    </li>
                  ))}
                </ul>
              ) : value ? (
                <span className="clamp">{value}</span>
              ) : (
                <span className="muted">{t('register.notFilled')}</span>
              )}
              {/* Inside the dd: a description list's groups hold only terms and descriptions. */}
              <button type="button" className="link-button" onClick={() => goTo(step)}>{t('common.edit')}</button>
            </dd>
          </div>
        ))}
      </dl>
      <section className="review-preview" aria-labelledby="review-preview-title">
        <h2 id="review-preview-title">{t('preview.title')}</h2>
        <ProfilePreview profile={previewOf({ ...draft, photoNameList: photos }, cat, t, today)} />
      </section>
      {submitError ? (
        <div ref={errorBox} className="notice notice-error" role="alert" data-testid="submit-error">
          <strong>{t('register.submitFailed')}</strong> {submitError}
          <p className="muted">{t('register.draftKept')}</p>
        </div>
      ) : null}
      <button ref={retry} type="button" className="btn btn-primary btn-block" onClick={onSubmit} disabled={submitting} data-testid="submit">
        {submitting ? t('register.submitting') : submitError ? t('register.retry') : t('register.submit')}
      </button>
      <p className="field-hint center">{t('register.afterSubmit')}</p>
    </>
  );
}

function fieldLabel(key: string, t: RegisterForm['t']): string {
  if (key.startsWith('valueItem.')) return t(`condition.${key.slice('valueItem.'.length).split('.')[0]}`);
  const base = key.split(/[.[]/)[0]!;
  return t(`field.${base}`);
}
