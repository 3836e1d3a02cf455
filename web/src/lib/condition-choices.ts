import type { ChoiceName, ValueCondition } from '@/lib/wasm';

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
