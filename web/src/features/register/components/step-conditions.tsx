import { useId } from 'react';
import { RANGE_CONDITIONS, VALUE_CONDITIONS, type RangeCondition, type ValueCondition } from '@/lib/wasm';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';
import { choiceOptions } from '@/lib/catalogue-labels';
import { CONDITION_CHOICE } from '@/lib/condition-choices';

/** Partner conditions (valueItem): sent only when selected and carrying data (the core decides). */
export function StepConditions({ form }: { form: RegisterForm }) {
  const { t } = form;
  return (
    <>
      <p className="field-hint">{t('hint.conditions')}</p>
      {RANGE_CONDITIONS.map((type) => (
        <RangeRow key={type} form={form} type={type} />
      ))}
      {VALUE_CONDITIONS.map((type) => (
        <ValueRow key={type} form={form} type={type} />
      ))}
    </>
  );
}

function RangeRow({ form, type }: { form: RegisterForm; type: RangeCondition }) {
  const { draft, update, errorOf, t } = form;
  const id = useId();
  const c = draft.conditions[type];
  const set = (patch: Partial<typeof c>) => update({ conditions: { ...draft.conditions, [type]: { ...c, ...patch } } });
  const error = errorOf(`valueItem.${type}`);
  return (
    <fieldset className={`field condition${error ? ' field-invalid' : ''}`} data-field={`valueItem.${type}`}>
      <legend className="sr-only">{t(`condition.${type}`)}</legend>
      <label className="check">
        <input type="checkbox" checked={c.selected} onChange={(e) => set({ selected: e.target.checked })} />
        <span>{t(`condition.${type}`)}</span>
      </label>
      {c.selected ? (
        <div className="range-row">
          <label htmlFor={`${id}-from`} className="sr-only">{t('condition.from')}</label>
          <input id={`${id}-from`} className="input" type="number" inputMode="numeric" placeholder={t('condition.from')} value={c.from} onChange={(e) => set({ from: e.target.value })} />
          <span aria-hidden="true">–</span>
          <label htmlFor={`${id}-to`} className="sr-only">{t('condition.to')}</label>
          <input id={`${id}-to`} className="input" type="number" inputMode="numeric" placeholder={t('condition.to')} value={c.to} onChange={(e) => set({ to: e.target.value })} />
          <span className="unit">{t(`condition.${type}.unit`)}</span>
        </div>
      ) : null}
      {error ? <p className="field-error" role="alert">{error}</p> : null}
    </fieldset>
  );
}

function ValueRow({ form, type }: { form: RegisterForm; type: ValueCondition }) {
  const { draft, update, errorOf, t, cat } = form;
  const id = useId();
  const c = draft.conditions[type];
  const set = (patch: Partial<typeof c>) => update({ conditions: { ...draft.conditions, [type]: { ...c, ...patch } } });
  const error = errorOf(`valueItem.${type}`);
  return (
    <fieldset className={`field condition${error ? ' field-invalid' : ''}`} data-field={`valueItem.${type}`}>
      <legend className="sr-only">{t(`condition.${type}`)}</legend>
      <label className="check">
        <input type="checkbox" checked={c.selected} onChange={(e) => set({ selected: e.target.checked })} />
        <span>{t(`condition.${type}`)}</span>
      </label>
      {c.selected ? (
        <>
          <label htmlFor={`${id}-v`} className="sr-only">{t(`condition.${type}`)}</label>
          <select id={`${id}-v`} className="input" value={c.value} onChange={(e) => set({ value: e.target.value })}>
            <option value="">{t('common.choose')}</option>
            {choiceOptions(cat.choices[CONDITION_CHOICE[type]], t).map((o) => (
              <option key={o.value} value={o.value}>{o.label}</option>
            ))}
          </select>
        </>
      ) : null}
      {error ? <p className="field-error" role="alert">{error}</p> : null}
    </fieldset>
  );
}
