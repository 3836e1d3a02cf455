/** The register steps and which payload fields (FieldErrors keys) each one owns. */
export const STEPS = [
  { id: 'basics', fields: ['nickname', 'name', 'gender', 'matchGender', 'birthday', 'height'] },
  {
    id: 'work',
    fields: ['occupationType', 'occupation', 'achievement', 'incomeRange', 'school', 'education', 'verifyMethod', 'companyEmail', 'verifyTempFileName', 'reviewLink', 'verifyDescription'],
  },
  { id: 'lifestyle', fields: ['marriageRecord', 'hasChildren', 'smoke', 'drink', 'tattoo', 'mbti'] },
  {
    id: 'tags',
    fields: ['personalityTagIds', 'exerciseTagIds', 'hobbyTagIds', 'marriageTypeTagIds', 'fertilityPlanTagIds', 'fertilityPlanTagId', 'petTagIds'],
  },
  { id: 'about', fields: ['aboutMe', 'datingQuestion', 'dailyLife', 'surprisePoint', 'feedback'] },
  { id: 'photos', fields: ['photoNameList'] },
  { id: 'conditions', fields: ['valueItem'] },
  { id: 'location', fields: ['city', 'address', 'latitude', 'longitude', 'recommendDistanceKm'] },
  { id: 'review', fields: [] as string[] },
] as const;

export type StepId = (typeof STEPS)[number]['id'];
export const REVIEW_STEP = STEPS.length - 1;

/** `valueItem.HEIGHT` → valueItem, `photoNameList.2` → photoNameList. */
export function baseField(key: string): string {
  return key.split(/[.[]/)[0]!;
}

export function stepOfField(key: string): number {
  const base = baseField(key);
  const index = STEPS.findIndex((s) => (s.fields as readonly string[]).includes(base));
  return index === -1 ? REVIEW_STEP : index;
}

export function errorsOfStep(errors: Record<string, string[]>, step: number): string[] {
  return Object.keys(errors).filter((k) => errors[k]!.length && stepOfField(k) === step);
}
