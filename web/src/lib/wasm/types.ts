/** The wasm API's types, all taken from the declarations wasm-bindgen generates from the Rust types
 *  (tsify): nothing here is written a second time. The aliases only give the web code stable,
 *  descriptive names. */
import type * as pkg from '@/wasm-pkg/kizuna_wasm';
import type {
  BuildOutcome,
  Catalogues,
  Choices,
  DraftConditions,
  RegisterDraft,
  RepairedDraft,
  Tag,
  TagCatalogue,
} from '@/wasm-pkg/kizuna_wasm';

export type {
  Catalogues,
  ChoiceOption,
  City,
  CodeEntry,
  Condition,
  Employer,
  ErrorCode,
  FieldErrors,
  RegisterDraft,
  ReviewStatus,
  RuleCode,
  UserProfileCreate,
} from '@/wasm-pkg/kizuna_wasm';

export type TagItem = Tag;

/** What /register's first step needs of the catalogues (virtual:core-first-step: the limits of its
 *  own fields only; the core's catalogues have every field's). */
export interface FirstStepCatalogue {
  choices: Pick<Choices, 'gender' | 'matchGender'>;
  limits: Catalogues['limits'];
}

/** The core's answers /register's first step is drawn with before the core itself is loaded. */
export interface FirstStepFacts extends FirstStepCatalogue {
  /** A fresh draft (the core's repair of nothing stored). */
  draft: RegisterDraft;
  /** The fields the core reports `required` for on that draft. */
  required: string[];
  /** The first step's fields an approved member cannot change (kizuna-core's `OnSave::Fixed`). */
  fixedFields: string[];
}
export type TagGroup = keyof TagCatalogue;
export type ChoiceName = keyof Choices;
export type RepairResult = RepairedDraft;
export type BuildResult = BuildOutcome;

/** The functions the web app calls, exactly as the package exports them. */
export type Core = Pick<
  typeof pkg,
  'catalogues' | 'emptyDraft' | 'repairDraft' | 'validateDraft' | 'buildPayload' | 'employerForEmail' | 'ruleCodes' | 'normaliseEmail' | 'isEmailCode'
>;

/** The condition kinds in the order the form shows them; the compiler checks them against the
 *  generated draft type, so a kind added in core cannot be forgotten here. */
export const RANGE_CONDITIONS = ['HEIGHT', 'AGE', 'INCOME'] as const satisfies readonly (keyof DraftConditions)[];
export const VALUE_CONDITIONS = [
  'EDUCATION',
  'MARRIAGE_RECORD',
  'HAS_CHILDREN',
  'SMOKE',
  'TATTOO',
  'DRINK',
] as const satisfies readonly (keyof DraftConditions)[];
export type RangeCondition = (typeof RANGE_CONDITIONS)[number];
export type ValueCondition = (typeof VALUE_CONDITIONS)[number];
