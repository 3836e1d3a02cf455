import type { ChoiceOption, TagItem } from '@/lib/wasm';
import type { TFunction } from '@/lib/i18n';

/** Labels of the core's catalogues (choices, tags) in the reader's language: the register
 *  form and the reviewer console show a wire value with the same words. The register page's chunk carries
 *  this module (vite.config.ts), so keep it small. */
export interface LabelledOption {
  value: string;
  label: string;
}

export function choiceOptions(list: ChoiceOption[], t: TFunction): LabelledOption[] {
  return list.map((o) => ({ value: String(o.value), label: t(o.key) }));
}

export function tagOptions(list: TagItem[], t: TFunction): LabelledOption[] {
  return list.map((o) => ({ value: String(o.id), label: t(o.key) }));
}

export function labelOf(list: ChoiceOption[], value: string, t: TFunction): string {
  const found = list.find((o) => String(o.value) === value);
  return found ? t(found.key) : value;
}
