/** The shapes of the wasm API (docs/core-api.md). The generated package carries the same types;
 *  these local names keep the web code independent of the generator's naming. */
export type FieldErrors = Record<string, string[]>;

export interface ChoiceOption {
  value: string | number;
  key: string;
}

export interface TagItem {
  id: number;
  key: string;
}

export interface City {
  code: string;
  key: string;
  latitude?: number;
  longitude?: number;
}

export interface Employer {
  id: string;
  name: string;
  domains: string[];
  logo: string;
  color?: string;
}

export type TagGroup = 'personality' | 'exercise' | 'hobby' | 'marriageType' | 'fertilityPlan' | 'pet';

export type ChoiceName =
  | 'gender'
  | 'matchGender'
  | 'occupationType'
  | 'education'
  | 'incomeRange'
  | 'marriageRecord'
  | 'hasChildren'
  | 'smoke'
  | 'tattoo'
  | 'drink'
  | 'mbti'
  | 'verifyMethod';

export interface Catalogues {
  tags: Record<TagGroup, TagItem[]>;
  cities: City[];
  employers: Employer[];
  choices: Record<ChoiceName, ChoiceOption[]>;
  limits: Record<string, { min?: number; max?: number }>;
}

export const RANGE_CONDITIONS = ['HEIGHT', 'AGE', 'INCOME'] as const;
export const VALUE_CONDITIONS = ['EDUCATION', 'MARRIAGE_RECORD', 'HAS_CHILDREN', 'SMOKE', 'TATTOO', 'DRINK'] as const;
export type RangeCondition = (typeof RANGE_CONDITIONS)[number];
export type ValueCondition = (typeof VALUE_CONDITIONS)[number];

export interface RegisterDraft {
  version: number;
  nickname: string;
  name: string;
  gender: string;
  matchGender: string;
  birthday: string;
  height: string;
  occupationType: string;
  occupation: string;
  achievement: string;
  incomeRange: string;
  school: string;
  education: string;
  marriageRecord: string;
  hasChildren: string;
  smoke: string;
  drink: string;
  tattoo: string;
  mbti: string;
  personalityTagIds: string[];
  exerciseTagIds: string[];
  hobbyTagIds: string[];
  marriageTypeTagIds: string[];
  fertilityPlanTagId: string;
  petTagIds: string[];
  aboutMe: string;
  datingQuestion: string;
  dailyLife: string;
  surprisePoint: string;
  city: string;
  address: string;
  latitude: number | null;
  longitude: number | null;
  recommendDistanceKm: string;
  feedback: string;
  verifyMethod: string;
  companyEmail: string;
  reviewLink: string;
  verifyTempFileName: string;
  verifyDescription: string;
  photoNameList: string[];
  conditions: Record<RangeCondition, { selected: boolean; from: string; to: string }> &
    Record<ValueCondition, { selected: boolean; value: string }>;
}

export interface RepairResult {
  draft: RegisterDraft;
  repaired: string[];
  dropped: string[];
  discarded: boolean;
}

export type UserProfileCreate = Record<string, unknown>;

export interface BuildResult {
  payload?: UserProfileCreate;
  errors: FieldErrors;
}

export interface Core {
  catalogues(): Catalogues;
  emptyDraft(): RegisterDraft;
  repairDraft(stored: unknown): RepairResult;
  validateDraft(draft: RegisterDraft, lineUserId: string, today: string): FieldErrors;
  buildPayload(draft: RegisterDraft, lineUserId: string, today: string): BuildResult;
  employerForEmail(email: string): Employer | undefined;
}

/** Rule codes the core reports (docs/core-api.md), each translated as `rule.{code}`. */
export const RULE_CODES = [
  'required', 'too_short', 'too_long', 'out_of_range', 'invalid', 'invalid_type', 'unknown_field',
  'invalid_choice', 'invalid_date', 'too_young', 'too_old', 'too_few', 'too_many', 'duplicate',
  'not_https', 'invalid_email', 'unknown_employer', 'invalid_range', 'both_or_neither', 'mismatch',
  'control_chars',
] as const;
