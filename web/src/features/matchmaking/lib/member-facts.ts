import type { TFunction } from '@/lib/i18n';
import type { Catalogues, TagGroup } from '@/lib/wasm';
import type { MemberView } from '@/features/matchmaking/api/matchmaking-api';

/** The tag fields of a member, in the order the register form asks them, with their catalogue
 *  group (the plans for children are a fact of the basics, beside the children). */
const TAG_FIELDS: readonly [keyof MemberView & `${string}TagIds`, TagGroup][] = [
  ['personalityTagIds', 'personality'],
  ['exerciseTagIds', 'exercise'],
  ['hobbyTagIds', 'hobby'],
  ['marriageTypeTagIds', 'marriageType'],
  ['petTagIds', 'pet'],
];

type Cat = Pick<Catalogues, 'tags' | 'cities' | 'choices'> | null;

/** A label from the catalogue key when the messages have it, else the raw code (a code added on
 *  the server before the web knows it still shows something true). */
function label(t: TFunction, key: string | undefined, code: string): string {
  if (!key) return code;
  const text = t(key);
  return text === key ? code : text;
}

export function cityLabel(t: TFunction, cat: Cat, code: string): string {
  return label(t, cat?.cities.find((c) => c.code === code)?.key, code);
}

/** The distance band, never a number finer than the band the server gave. */
export function bandLabel(t: TFunction, band: string): string {
  return label(t, `distanceBand.${band}`, band);
}

export function occupationTypeLabel(t: TFunction, code: string): string {
  return label(t, `choice.occupationType.${code}`, code);
}

/** "32 · Taipei City": age (the API gives years, never the birthday) and city. */
export function ageAndCity(t: TFunction, cat: Cat, m: Pick<MemberView, 'age' | 'city'>): string {
  return `${t('match.age', { age: m.age })} · ${cityLabel(t, cat, m.city)}`;
}

/** The member's tags grouped as the register form asks them (personality, exercise, hobbies,
 *  marriage plans, pets), each group under its field's label key; empty groups left out. */
export function tagGroups(t: TFunction, cat: Cat, m: MemberView): { field: string; labelKey: string; labels: string[] }[] {
  if (!cat) return [];
  return TAG_FIELDS.map(([field, group]) => ({
    field,
    labelKey: `field.${field}`,
    labels: m[field].flatMap((id) => {
      const tag = cat.tags[group].find((x) => x.id === id);
      return tag ? [label(t, tag.key, String(id))] : [];
    }),
  })).filter((g) => g.labels.length > 0);
}

/** A Q&A answer a like's comment may be about (the server's `QaAnswer`). */
export type AnswerCode = 'DATING_QUESTION' | 'DAILY_LIFE' | 'SURPRISE_POINT';

/** The optional Q&A answers the member gave, with their question's label key and wire code. */
export function answers(m: MemberView): { key: string; text: string; code: AnswerCode }[] {
  const qa: [string, string | null | undefined, AnswerCode][] = [
    ['field.datingQuestion', m.datingQuestion, 'DATING_QUESTION'],
    ['field.dailyLife', m.dailyLife, 'DAILY_LIFE'],
    ['field.surprisePoint', m.surprisePoint, 'SURPRISE_POINT'],
  ];
  return qa.filter((e): e is [string, string, AnswerCode] => typeof e[1] === 'string' && e[1].trim() !== '').map(([key, text, code]) => ({ key, text, code }));
}

/** The question label key of an answer code. */
export function answerKey(code: string): string {
  return code === 'DATING_QUESTION' ? 'field.datingQuestion' : code === 'DAILY_LIFE' ? 'field.dailyLife' : 'field.surprisePoint';
}

/** What the member chose and others filter on, as label and value rows in the reader's language:
 *  height, education, marriage record, children and plans, smoking, drinking, tattoo, MBTI. */
export function facts(t: TFunction, cat: Cat, m: MemberView): { key: string; label: string; value: string }[] {
  const choice = (list: { value: string | number; key: string }[] | undefined, value: string | number) =>
    label(t, list?.find((o) => String(o.value) === String(value))?.key, String(value));
  const plan = m.fertilityPlanTagIds
    .map((id) => cat?.tags.fertilityPlan.find((x) => x.id === id))
    .filter((tag) => tag !== undefined)
    .map((tag) => label(t, tag.key, String(tag.id)));
  const rows = [
    { key: 'height', label: t('match.fact.height'), value: t('match.fact.cm', { n: m.height }) },
    { key: 'education', label: t('field.education'), value: choice(cat?.choices.education, m.education) },
    { key: 'marriageRecord', label: t('field.marriageRecord'), value: choice(cat?.choices.marriageRecord, m.marriageRecord) },
    { key: 'hasChildren', label: t('field.hasChildren'), value: choice(cat?.choices.hasChildren, m.hasChildren) },
    { key: 'plans', label: t('match.fact.plans'), value: plan.join(', ') },
    { key: 'smoke', label: t('field.smoke'), value: choice(cat?.choices.smoke, m.smoke) },
    { key: 'drink', label: t('field.drink'), value: choice(cat?.choices.drink, m.drink) },
    { key: 'tattoo', label: t('field.tattoo'), value: choice(cat?.choices.tattoo, m.tattoo) },
    { key: 'mbti', label: t('field.mbti'), value: m.mbti ?? '' },
  ];
  return rows.filter((r) => r.value !== '');
}

/** `?id=12` → 12; anything but a positive integer is no member. */
export function memberIdFrom(search: string): number | null {
  const raw = new URLSearchParams(search).get('id');
  if (!raw || !/^[1-9]\d{0,15}$/.test(raw)) return null;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : null;
}

/** The report form's own check before sending (the server checks again): at least one reason,
 *  and a text with OTHER. */
export function reportProblem(reasons: readonly string[], text: string): 'reasons' | 'text' | null {
  if (reasons.length === 0) return 'reasons';
  if (reasons.includes('OTHER') && text.trim() === '') return 'text';
  return null;
}
