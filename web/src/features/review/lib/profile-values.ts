import type { Catalogues, ChoiceName, Condition, TagGroup } from '@/lib/wasm';
import { labelOf } from '@/lib/catalogue-labels';
import { conditionText } from '@/lib/condition-choices';
import { formatDate, type TFunction } from '@/lib/i18n';

export { conditionText };

/** A stored profile's wire values as a reviewer reads them: choices, tags, the city and the partner
 *  conditions with the register form's labels (from the core's catalogues); other values as they are. */
export function showValue(cat: Catalogues | null, t: TFunction, field: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'birthday' && typeof value === 'string') return formatDate(value);
  // 0 km is how the form stores "any distance".
  if (field === 'recommendDistanceKm' && Number(value) === 0) return t('console.anyDistance');
  if (cat) {
    if (field in cat.choices) return labelOf(cat.choices[field as ChoiceName], String(value), t);
    if (field === 'city' && typeof value === 'string') return cityLabel(cat, value, t);
    const group = tagGroupOf(field);
    if (group && Array.isArray(value)) return list(value.map((id) => tagLabel(cat, group, id, t)));
    if (field === 'valueItem' && Array.isArray(value)) return list((value as Condition[]).map((c) => conditionText(cat, t, c)));
  }
  if (Array.isArray(value)) return list(value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))));
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function list(items: string[]): string {
  return items.length ? items.join(', ') : '—';
}

function tagGroupOf(field: string): TagGroup | null {
  const m = /^(\w+)TagIds$/.exec(field);
  return m ? (m[1] as TagGroup) : null;
}

function tagLabel(cat: Catalogues, group: TagGroup, id: unknown, t: TFunction): string {
  const tag = cat.tags[group]?.find((g) => g.id === Number(id));
  return tag ? t(tag.key) : String(id);
}

function cityLabel(cat: Catalogues, code: string, t: TFunction): string {
  const city = cat.cities.find((c) => c.code === code);
  return city ? t(city.key) : code;
}
