import firstStep from 'virtual:core-first-step';
import { SelectInput, TextInput } from '@/components/form';
import type { FirstStepForm } from '@/features/register/hooks/use-register-form';
import { choiceOptions } from '@/lib/catalogue-labels';
import { formatDate, useLocale } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';

/** The help topic that says how to ask a reviewer to correct the name, birthday or gender. */
const CORRECTIONS = '/help?topic=corrections';

/** Drawn before the core is loaded too: it uses only what the first step's form has. */
export function StepBasics({ form }: { form: FirstStepForm }) {
  const { draft, update, touch, errorOf, t, cat } = form;
  const locale = useLocale();
  // An approved member's identity was checked by a reviewer: the fields kizuna-core fixes after
  // approval (`OnSave::Fixed`) are shown, not changeable (the server refuses a change too,
  // `not_editable`), and the notice says how to ask for a correction.
  const editing = form.editing;
  const fixed = (field: string) => editing && firstStep.fixedFields.includes(field);
  return (
    <>
      {editing ? (
        <p className="notice" data-testid="fixed-notice">
          {t('register.fixedNotice')}{' '}
          <a
            href={CORRECTIONS}
            data-testid="fixed-help"
            onClick={(e) => {
              e.preventDefault();
              void navigate(CORRECTIONS);
            }}
          >
            {t('register.fixedLink')}
          </a>
        </p>
      ) : null}
      <TextInput name="nickname" label={t('field.nickname')} hint={t('hint.nickname')} value={draft.nickname} required={form.req('nickname')} onChange={(v) => update({ nickname: v })} onBlur={() => touch('nickname')} error={errorOf('nickname')} autoComplete="nickname" readOnly={fixed('nickname')} />
      <TextInput name="name" label={t('field.name')} hint={t('hint.name')} value={draft.name} required={form.req('name')} onChange={(v) => update({ name: v })} onBlur={() => touch('name')} error={errorOf('name')} autoComplete="name" readOnly={fixed('name')} />
      <SelectInput name="gender" label={t('field.gender')} placeholder={t('common.choose')} value={draft.gender} options={choiceOptions(cat.choices.gender, t)} required={form.req('gender')} onChange={(v) => update({ gender: v })} onBlur={() => touch('gender')} error={errorOf('gender')} disabled={fixed('gender')} />
      <SelectInput name="matchGender" label={t('field.matchGender')} placeholder={t('common.choose')} value={draft.matchGender} options={choiceOptions(cat.choices.matchGender, t)} required={form.req('matchGender')} onChange={(v) => update({ matchGender: v })} onBlur={() => touch('matchGender')} error={errorOf('matchGender')} disabled={fixed('matchGender')} />
      <TextInput name="birthday" type="date" label={t('field.birthday')} hint={draft.birthday ? formatDate(draft.birthday, locale) : undefined} value={draft.birthday} required={form.req('birthday')} onChange={(v) => update({ birthday: v })} onBlur={() => touch('birthday')} error={errorOf('birthday')} autoComplete="bday" max={form.today} readOnly={fixed('birthday')} />
      <TextInput name="height" type="number" inputMode="numeric" label={t('field.height')} hint={t('hint.height')} value={draft.height} required={form.req('height')} onChange={(v) => update({ height: v })} onBlur={() => touch('height')} error={errorOf('height')} min={cat.limits.height?.min} max={cat.limits.height?.max} readOnly={fixed('height')} />
    </>
  );
}
