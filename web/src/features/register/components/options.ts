import type { ChoiceOption, TagItem } from '@/lib/wasm';
import type { TFunction } from '@/lib/i18n';
import type { Option } from '@/components/form';

export function choiceOptions(list: ChoiceOption[], t: TFunction): Option[] {
  return list.map((o) => ({ value: String(o.value), label: t(o.key) }));
}

export function tagOptions(list: TagItem[], t: TFunction): Option[] {
  return list.map((o) => ({ value: String(o.id), label: t(o.key) }));
}

export function labelOf(list: ChoiceOption[], value: string, t: TFunction): string {
  const found = list.find((o) => String(o.value) === value);
  return found ? t(found.key) : value;
}
