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

/** The fields with an error, in the order a member meets them: by step, then as the step lists
 *  its fields (the validator's own order put photos before the basics). */
export function errorsInStepOrder(errors: Record<string, string[]>): string[] {
  const place = (key: string) => {
    const step = stepOfField(key);
    return step * 100 + (STEPS[step]!.fields as readonly string[]).indexOf(baseField(key));
  };
  return Object.keys(errors)
    .filter((k) => errors[k]!.length)
    .map((k, i) => ({ k, at: place(k), i }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map(({ k }) => k);
}

export function errorsOfStep(errors: Record<string, string[]>, step: number): string[] {
  return Object.keys(errors).filter((k) => errors[k]!.length && stepOfField(k) === step);
}

/** The fields a rejection's reasons concern, from the `reject` code catalogue's
 *  `fields` (kizuna-core's): a reason without fields (OTHER) flags none. */
export function flaggedFields(reasons: readonly string[], catalogue: readonly { code: string; fields: readonly string[] }[]): Set<string> {
  return new Set(catalogue.filter((entry) => reasons.includes(entry.code)).flatMap((entry) => entry.fields));
}

/** The first step holding a flagged field, where a resubmission opens; the first step when none. */
export function firstFlaggedStep(flagged: ReadonlySet<string>): number {
  const steps = [...flagged].map(stepOfField).filter((step) => step !== REVIEW_STEP);
  return steps.length ? Math.min(...steps) : 0;
}
