import { SelectInput } from '@/components/form';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';
import { choiceOptions } from '@/lib/catalogue-labels';

export function StepLifestyle({ form }: { form: RegisterForm }) {
  const { draft, update, touch, errorOf, t, cat } = form;
  const select = (name: 'marriageRecord' | 'hasChildren' | 'smoke' | 'drink' | 'tattoo' | 'mbti') => (
    <SelectInput
      name={name}
      label={t(`field.${name}`)}
      placeholder={t('common.choose')}
      value={draft[name]}
      options={choiceOptions(cat.choices[name], t)}
      required={form.req(name)}
      onChange={(v) => update({ [name]: v })}
      onBlur={() => touch(name)}
      error={errorOf(name)}
    />
  );
  return (
    <>
      {select('marriageRecord')}
      {select('hasChildren')}
      {select('smoke')}
      {select('drink')}
      {select('tattoo')}
      {select('mbti')}
    </>
  );
}
