import '@/features/register/components/register-steps.css';
import { useDeferredValue, useRef, useState, type ChangeEvent } from 'react';
import { ChipGroup, SelectInput, TextInput, useFlag } from '@/components/form';
import { downscaleImage, blobToDataUrl } from '@/lib/image-resize';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';
import type { Employer } from '@/lib/wasm';
import { choiceOptions } from '@/lib/catalogue-labels';
import { getPhoto, isLocalToken, newLocalToken, savePhoto } from '@/features/register/lib/draft-storage';
import { imageUrl } from '@/lib/image-url';
import { EmailCode } from '@/features/register/components/email-code';
import { navigate } from '@/lib/navigation';

/** The whole privacy policy, on the help pages (readable before there is an account); the draft
 *  is kept while the member reads it. */
const PRIVACY_POLICY = '/help?topic=privacy';

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

      <Employers form={form} matchedId={matched?.id} />

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
          <p>
            <a
              href={PRIVACY_POLICY}
              data-testid="privacy-full"
              onClick={(e) => {
                e.preventDefault();
                void navigate(PRIVACY_POLICY);
              }}
            >
              {t('register.privacyFull')}
            </a>
          </p>
        </div>
      ) : null}
    </>
  );
}

/** The employers the service is for: one line, opened into a searchable list. Choosing one sets
 *  the verification to the work e-mail with that employer's domain filled in, the cursor before
 *  the "@" for the member's own name. */
function Employers({ form, matchedId }: { form: RegisterForm; matchedId: string | undefined }) {
  const { cat, draft, update, t } = form;
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query.trim().toLowerCase());
  const shown = deferred ? cat.employers.filter((e) => e.name.toLowerCase().includes(deferred) || e.domains.some((d) => d.includes(deferred))) : cat.employers;
  const details = useRef<HTMLDetailsElement>(null);
  const choose = (e: Employer) => {
    const domain = e.domains[0];
    if (!domain) return;
    const local = draft.companyEmail.includes('@') ? draft.companyEmail.slice(0, draft.companyEmail.indexOf('@')) : draft.companyEmail;
    update({ verifyMethod: 'COMPANY_EMAIL', companyEmail: `${local.trim()}@${domain}` });
    if (details.current) details.current.open = false;
    // The address field appears with the method: focus it once it is drawn, caret before the "@".
    requestAnimationFrame(() => {
      const input = document.querySelector<HTMLInputElement>('[data-field="companyEmail"] input');
      if (!input) return;
      input.focus();
      const at = input.value.indexOf('@');
      // Selection is not supported on type=email; the focus alone is still right.
      try {
        input.setSelectionRange(at, at);
      } catch {
        /* not supported */
      }
    });
  };
  return (
    <details ref={details} className="subsection employers" data-testid="employers">
      <summary>
        <span className="employers-title">{t('register.employersTitle', { n: cat.employers.length })}</span>
        <span className="field-hint">{t('register.employersHint')}</span>
      </summary>
      <input type="search" className="input" value={query} onChange={(e) => setQuery(e.target.value)} placeholder={t('register.employersSearch')} aria-label={t('register.employersSearch')} data-testid="employer-search" />
      <p className="field-hint">{t('register.employersPick')}</p>
      <ul className="employer-list">
        {shown.map((e) => (
          <li key={e.id}>
            <button type="button" className={`employer${matchedId === e.id ? ' employer-match' : ''}`} onClick={() => choose(e)} data-employer={e.id}>
              <img src={`/${e.logo}`} alt="" width="28" height="28" loading="lazy" decoding="async" />
              <span>{e.name}</span>
              <span className="muted">@{e.domains[0]}</span>
            </button>
          </li>
        ))}
      </ul>
      {shown.length ? null : <p className="muted">{t('register.employersNone')}</p>}
    </details>
  );
}

function VerifyPhoto({ form }: { form: RegisterForm }) {
  const flag = useFlag('verifyTempFileName');
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
    <div className={`field${error ? ' field-invalid' : ''}${flag.className}`} data-field="verifyTempFileName">
      <span className="field-label" id="verify-photo-label">{t('field.verifyTempFileName')} <span className="required" aria-hidden="true">*</span></span>
      {flag.marker}
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
