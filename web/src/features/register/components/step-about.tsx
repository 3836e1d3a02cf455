import { TextInput } from '@/components/form';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';

export function StepAbout({ form }: { form: RegisterForm }) {
  const { draft, update, touch, errorOf, t, cat } = form;
  const area = (name: 'aboutMe' | 'datingQuestion' | 'dailyLife' | 'surprisePoint' | 'feedback') => (
    <TextInput
      name={name}
      multiline
      label={t(`field.${name}`)}
      hint={t(`hint.${name}`)}
      value={draft[name]}
      required={form.req(name)}
      maxLength={cat.limits[name]?.max}
      onChange={(v) => update({ [name]: v })}
      onBlur={() => touch(name)}
      error={errorOf(name)}
    />
  );
  return (
    <>
      {area('aboutMe')}
      {area('datingQuestion')}
      {area('dailyLife')}
      {area('surprisePoint')}
      {area('feedback')}
    </>
  );
}
