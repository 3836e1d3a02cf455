import { useEffect, useState } from 'react';
import { ApiError, NETWORK_ERROR } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';
import { confirmEmailCode, isEmailConfirmed, sendEmailCode } from '@/features/register/api/email-code';

/** The code step of COMPANY_EMAIL: send a code, type the digits, confirm. Errors stay beside the
 *  field they belong to (the address, or the code). */
export function EmailCode({ form }: { form: RegisterForm }) {
  const { draft, t, lineUserId, message, cat, core } = form;
  // The code's length and what counts as a code are kizuna-core's (`rules::EMAIL_CODE_DIGITS`,
  // `EmailCode::parse`), as the server checks them.
  const digits = cat.limits.emailCode?.max;
  const email = core.normaliseEmail(draft.companyEmail);
  // Confirmation and errors belong to one address: typing another one shows the step afresh.
  const [confirmedFor, setConfirmedFor] = useState<string | null>(() => (isEmailConfirmed(core, email) ? email : null));
  const confirmed = confirmedFor === email || isEmailConfirmed(core, email);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [emailErrorOf, setEmailErrorOf] = useState<{ email: string; text: string } | null>(null);
  const emailError = emailErrorOf?.email === email ? emailErrorOf.text : null;
  const setEmailError = (text: string | null) => setEmailErrorOf(text ? { email, text } : null);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [resendAt, setResendAt] = useState(0);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (resendAt <= now) return;
    const id = setTimeout(() => setNow(Date.now()), 1000);
    return () => clearTimeout(id);
  }, [resendAt, now]);

  const explain = (err: unknown, field: 'email' | 'code'): string => {
    if (err instanceof ApiError) {
      const codes = err.fields?.[field] ?? (field === 'email' ? err.fields?.companyEmail : undefined);
      if (codes?.[0]) return field === 'code' ? t(`emailCode.error.${codes[0]}`) : message('companyEmail', codes[0]);
      if (err.status === 429) return t('emailCode.tooMany');
      if (err.code === NETWORK_ERROR) return t('error.network');
      return err.causeText;
    }
    return t('error.unexpected');
  };

  if (!email || form.errors.companyEmail?.length) return null;
  if (confirmed) {
    return <p className="notice notice-ok" role="status" data-testid="email-confirmed">{t('emailCode.confirmed', { email })}</p>;
  }

  const send = async () => {
    setBusy(true);
    setEmailError(null);
    setCodeError(null);
    try {
      const sent = await sendEmailCode(lineUserId, email);
      setSentTo(sent.email);
      setResendAt(Date.now() + sent.resendAfter * 1000);
      setNow(Date.now());
    } catch (err) {
      logger.warn(`email code send: ${describeError(err)}`);
      setEmailError(explain(err, 'email'));
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    if (!core.isEmailCode(code)) {
      setCodeError(t('emailCode.error.invalid'));
      return;
    }
    setBusy(true);
    setCodeError(null);
    try {
      await confirmEmailCode(lineUserId, email, code);
      setConfirmedFor(email);
    } catch (err) {
      logger.warn(`email code confirm: ${describeError(err)}`);
      setCodeError(explain(err, 'code'));
    } finally {
      setBusy(false);
    }
  };

  const wait = Math.max(0, Math.ceil((resendAt - now) / 1000));
  const sent = sentTo === email;
  return (
    <div className="card email-code" data-testid="email-code">
      <p className="field-hint">{sent ? t('emailCode.sentTo', { email }) : t('emailCode.help')}</p>
      {emailError ? <p className="field-error" role="alert" data-testid="email-code-email-error">{emailError}</p> : null}
      <button type="button" className="btn" onClick={() => void send()} disabled={busy || wait > 0} data-testid="email-code-send">
        {sent ? (wait > 0 ? t('emailCode.resendIn', { s: wait }) : t('emailCode.resend')) : t('emailCode.send')}
      </button>
      {sent ? (
        <div className={`field${codeError ? ' field-invalid' : ''}`} data-field="emailCode">
          <label className="field-label" htmlFor="email-code-input">{t('emailCode.label')}</label>
          <div className="inline-form">
            <input
              id="email-code-input"
              className="input"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern={digits ? `[0-9]{${digits}}` : undefined}
              maxLength={digits}
              value={code}
              aria-invalid={codeError ? true : undefined}
              aria-describedby={codeError ? 'email-code-error' : undefined}
              onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, digits))}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  void confirm();
                }
              }}
            />
            <button type="button" className="btn btn-primary" onClick={() => void confirm()} disabled={busy} data-testid="email-code-confirm">
              {t('emailCode.confirm')}
            </button>
          </div>
          {codeError ? <p className="field-error" id="email-code-error" role="alert" data-testid="email-code-error">{codeError}</p> : null}
        </div>
      ) : null}
    </div>
  );
}
