import type { Catalogues, ChoiceName, Condition, ValueCondition } from '@/lib/wasm';
import { labelOf } from '@/lib/catalogue-labels';
import type { TFunction } from '@/lib/i18n';

/** The choice catalogue each one-value partner condition picks from (register form and reviewer
 *  console). */
export const CONDITION_CHOICE: Record<ValueCondition, ChoiceName> = {
  EDUCATION: 'education',
  MARRIAGE_RECORD: 'marriageRecord',
  HAS_CHILDREN: 'hasChildren',
  SMOKE: 'smoke',
  TATTOO: 'tattoo',
  DRINK: 'drink',
};

/** One partner condition as the member and the reviewer read it ("Age: 28–35 years"). */
export function conditionText(cat: Catalogues, t: TFunction, c: Condition): string {
  const name = t(`condition.${c.type}`);
  if ('value' in c) {
    const choice = CONDITION_CHOICE[c.type as keyof typeof CONDITION_CHOICE];
    return `${name}: ${choice ? labelOf(cat.choices[choice], String(c.value), t) : String(c.value)}`;
  }
  // 0 or absent is "no bound" on the wire.
  const from = c.from ? String(c.from) : '';
  const to = c.to ? String(c.to) : '';
  return `${name}: ${from}–${to} ${t(`condition.${c.type}.unit`)}`.trimEnd();
}
