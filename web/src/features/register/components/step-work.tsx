import { useRef, useState, type ChangeEvent } from 'react';
import { ChipGroup, SelectInput, TextInput } from '@/components/form';
import { downscaleImage, blobToDataUrl } from '@/lib/image-resize';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';
import { choiceOptions } from '@/lib/catalogue-labels';
import { getPhoto, isLocalToken, newLocalToken, savePhoto } from '@/features/register/lib/draft-storage';
import { imageUrl } from '@/lib/image-url';
import { EmailCode } from '@/features/register/components/email-code';

export function StepWork({ form }: { form: RegisterForm }) {
  const { draft, update, touch, errorOf, t, cat, core } = form;
  const [privacyOpen, setPrivacyOpen] = useState(false);
  const matched = draft.verifyMethod === 'COMPANY_EMAIL' && draft.companyEmail ? core.employerForEmail(draft.companyEmail) : undefined;
  return (
    <>
      <SelectInput name="occupationType" label={t('field.occupationType')} placeholder={t('common.choose')} value={draft.occupationType} options={choiceOptions(cat.choices.occupationType, t)} required={form.req('occupationType')} onChange={(v) => update({ occupationType: v })} onBlur={() => touch('occupationType')} error={errorOf('occupationType')} />
      <TextInput name="occupation" label={t('field.occupation')} hint={t('hint.occupation')} value={draft.occupation} required={form.req('occupation')} onChange={(v) => update({ occupation: v })} onBlur={() => touch('occupation')} error={errorOf('occupation')} autoComplete="organization-title" />
      <TextInput name="achievement" multiline label={t('field.achievement')} hint={t('hint.achievement')} value={draft.achievement} required={form.req('achievement')} onChange={(v) => update({ achievement: v })} onBlur={() => touch('achievement')} error={errorOf('achievement')} />
      <SelectInput name="incomeRange" label={t('field.incomeRange')} placeholder={t('common.choose')} value={draft.incomeRange} options={choiceOptions(cat.choices.incomeRange, t)} required={form.req('incomeRange')} onChange={(v) => update({ incomeRange: v })} onBlur={() => touch('incomeRange')} error={errorOf('incomeRange')} />
      <TextInput name="school" label={t('field.school')} value={draft.school} required={form.req('school')} onChange={(v) => update({ school: v })} onBlur={() => touch('school')} error={errorOf('school')} />
      <SelectInput name="education" label={t('field.education')} placeholder={t('common.choose')} value={draft.education} options={choiceOptions(cat.choices.education, t)} required={form.req('education')} onChange={(v) => update({ education: v })} onBlur={() => touch('education')} error={errorOf('education')} />

      <section className="subsection" aria-labelledby="employers-title">
        <h3 id="employers-title">{t('register.employersTitle', { n: cat.employers.length })}</h3>
        <p className="field-hint">{t('register.employersHint')}</p>
        <ul className="logo-wall">
          {cat.employers.map((e) => (
            <li key={e.id} className={matched?.id === e.id ? 'logo-match' : undefined}>
              <img src={`/${e.logo}`} alt="" width="40" height="40" loading="lazy" decoding="async" />
              <span>{e.name}</span>
            </li>
          ))}
        </ul>
      </section>

      <ChipGroup
        name="verifyMethod"
        legend={t('field.verifyMethod')}
        hint={t('hint.verifyMethod')}
        single
        options={choiceOptions(cat.choices.verifyMethod, t)}
        selected={draft.verifyMethod ? [draft.verifyMethod] : []}
        onToggle={(v) => update({ verifyMethod: v })}
        error={errorOf('verifyMethod')}
        required={form.req('verifyMethod')}
      />
      {draft.verifyMethod === 'COMPANY_EMAIL' ? (
        <>
          <TextInput name="companyEmail" type="email" inputMode="email" label={t('field.companyEmail')} hint={t('hint.companyEmail')} value={draft.companyEmail} required onChange={(v) => update({ companyEmail: v })} onBlur={() => touch('companyEmail')} error={errorOf('companyEmail')} autoComplete="email" />
          {matched ? <p className="notice notice-ok" role="status">{t('register.employerRecognised', { name: matched.name })}</p> : null}
          {matched ? <EmailCode form={form} /> : null}
        </>
      ) : null}
      {draft.verifyMethod === 'EMPLOYEE_ID' ? <VerifyPhoto form={form} /> : null}
      {draft.verifyMethod === 'REVIEW_LINK' ? (
        <TextInput name="reviewLink" type="url" inputMode="url" label={t('field.reviewLink')} hint={t('hint.reviewLink')} value={draft.reviewLink} required onChange={(v) => update({ reviewLink: v })} onBlur={() => touch('reviewLink')} error={errorOf('reviewLink')} placeholder="https://" />
      ) : null}
      {draft.verifyMethod ? (
        <TextInput name="verifyDescription" multiline label={t('field.verifyDescription')} hint={t('hint.verifyDescription')} value={draft.verifyDescription} required={form.req('verifyDescription')} onChange={(v) => update({ verifyDescription: v })} onBlur={() => touch('verifyDescription')} error={errorOf('verifyDescription')} />
      ) : null}
      <p className="privacy-line">
        {t('register.privacyIntro')}{' '}
        <button type="button" className="link-button" onClick={() => setPrivacyOpen((o) => !o)} aria-expanded={privacyOpen} aria-controls="privacy-policy">
          {t('register.privacyLink')}
        </button>
      </p>
      {privacyOpen ? (
        <div id="privacy-policy" className="card privacy-card">
          <h3>{t('privacy.title')}</h3>
          <p>{t('privacy.p1')}</p>
          <p>{t('privacy.p2')}</p>
          <p>{t('privacy.p3')}</p>
        </div>
      ) : null}
    </>
  );
}

function VerifyPhoto({ form }: { form: RegisterForm }) {
  const { draft, update, errorOf, t } = form;
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  // A resubmission keeps the stored proof (the owner may view it) until a new one is chosen.
  const preview = draft.verifyTempFileName ? (isLocalToken(draft.verifyTempFileName) ? getPhoto(draft.verifyTempFileName) : imageUrl(draft.verifyTempFileName)) : undefined;
  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setBusy(true);
    try {
      const dataUrl = await blobToDataUrl(await downscaleImage(file));
      const token = newLocalToken();
      if (!savePhoto(token, dataUrl)) toast.show(t('register.photoMemoryOnly'));
      update({ verifyTempFileName: token });
    } catch (err) {
      logger.warn(`verification photo: ${describeError(err)}`);
      toast.error(t('register.photoUnreadable'));
    } finally {
      setBusy(false);
    }
  };
  const error = errorOf('verifyTempFileName');
  return (
    <div className={`field${error ? ' field-invalid' : ''}`} data-field="verifyTempFileName">
      <span className="field-label" id="verify-photo-label">{t('field.verifyTempFileName')} <span className="required" aria-hidden="true">*</span></span>
      <p className="field-hint">{t('hint.verifyTempFileName')}</p>
      {preview ? <img className="verify-preview" src={preview} alt={t('field.verifyTempFileName')} /> : null}
      <button type="button" className="btn" onClick={() => input.current?.click()} disabled={busy} aria-describedby="verify-photo-label">
        {busy ? t('common.processing') : preview ? t('register.replacePhoto') : t('register.choosePhoto')}
      </button>
      <input ref={input} type="file" accept="image/*" hidden onChange={(e) => void onFile(e)} data-testid="verify-file" />
      {error ? <p className="field-error" role="alert">{error}</p> : null}
    </div>
  );
}
