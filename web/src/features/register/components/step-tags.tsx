import { ChipGroup } from '@/components/form';
import type { TagGroup } from '@/lib/wasm';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';
import { tagOptions } from '@/lib/catalogue-labels';

const MULTI: { group: Exclude<TagGroup, 'fertilityPlan'>; field: 'personalityTagIds' | 'exerciseTagIds' | 'hobbyTagIds' | 'marriageTypeTagIds' | 'petTagIds' }[] = [
  { group: 'personality', field: 'personalityTagIds' },
  { group: 'exercise', field: 'exerciseTagIds' },
  { group: 'hobby', field: 'hobbyTagIds' },
  { group: 'marriageType', field: 'marriageTypeTagIds' },
];

export function StepTags({ form }: { form: RegisterForm }) {
  const { draft, update, errorOf, t, cat } = form;
  const toggle = (field: (typeof MULTI)[number]['field'], value: string) => {
    const current = draft[field];
    update({ [field]: current.includes(value) ? current.filter((v) => v !== value) : [...current, value] });
  };
  const limitHint = (field: string) => {
    const l = cat.limits[field];
    return l?.max ? t('hint.pickUpTo', { max: l.max }) : undefined;
  };
  return (
    <>
      {MULTI.map(({ group, field }) => (
        <ChipGroup key={field} name={field} legend={t(`field.${field}`)} hint={limitHint(field)} options={tagOptions(cat.tags[group], t)} selected={draft[field]} onToggle={(v) => toggle(field, v)} error={errorOf(field)} required={form.req(field)} />
      ))}
      <ChipGroup
        name="fertilityPlanTagIds"
        legend={t('field.fertilityPlanTagIds')}
        single
        options={tagOptions(cat.tags.fertilityPlan, t)}
        selected={draft.fertilityPlanTagId ? [draft.fertilityPlanTagId] : []}
        onToggle={(v) => update({ fertilityPlanTagId: v })}
        error={errorOf('fertilityPlanTagIds')}
        required={form.req('fertilityPlanTagIds')}
      />
      <ChipGroup name="petTagIds" legend={t('field.petTagIds')} hint={limitHint('petTagIds')} options={tagOptions(cat.tags.pet, t)} selected={draft.petTagIds} onToggle={(v) => toggle('petTagIds', v)} error={errorOf('petTagIds')} required={form.req('petTagIds')} />
    </>
  );
}
