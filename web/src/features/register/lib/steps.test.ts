import { describe, expect, it } from 'vitest';
import { errorsInStepOrder, errorsOfStep, firstFlaggedStep, flaggedFields, REVIEW_STEP, stepOfField, STEPS } from '@/features/register/lib/steps';

describe('register steps', () => {
  it('has the eight form steps and review', () => {
    expect(STEPS.map((s) => s.id)).toEqual(['basics', 'work', 'lifestyle', 'tags', 'about', 'photos', 'conditions', 'location', 'review']);
  });
  it('maps error keys to their step', () => {
    expect(stepOfField('nickname')).toBe(0);
    expect(stepOfField('companyEmail')).toBe(1);
    expect(stepOfField('valueItem.HEIGHT')).toBe(6);
    expect(stepOfField('photoNameList')).toBe(5);
    expect(stepOfField('account')).toBe(REVIEW_STEP);
    expect(errorsOfStep({ nickname: ['required'], city: ['required'], gender: [] }, 0)).toEqual(['nickname']);
  });
  it('lists the errors in the order of the steps, then of the fields within a step', () => {
    const errors = { photoNameList: ['required'], city: ['required'], 'valueItem.AGE.min': ['range'], birthday: ['required'], nickname: ['required'], gender: [], account: ['taken'], occupation: ['required'] };
    expect(errorsInStepOrder(errors)).toEqual(['nickname', 'birthday', 'occupation', 'photoNameList', 'valueItem.AGE.min', 'city', 'account']);
  });
  it('flags the fields of a rejection and opens on the first step that needs a change', () => {
    const catalogue = [
      { code: 'PHOTOS_UNCLEAR', fields: ['photoNameList'] },
      { code: 'PROFILE_INCOMPLETE', fields: ['aboutMe', 'datingQuestion'] },
      { code: 'NAME_MISMATCH', fields: ['name'] },
      { code: 'OTHER', fields: [] },
    ];
    const flagged = flaggedFields(['PROFILE_INCOMPLETE', 'PHOTOS_UNCLEAR'], catalogue);
    expect([...flagged].sort()).toEqual(['aboutMe', 'datingQuestion', 'photoNameList']);
    expect(firstFlaggedStep(flagged)).toBe(STEPS.findIndex((s) => s.id === 'about'));
    expect(firstFlaggedStep(flaggedFields(['NAME_MISMATCH', 'PHOTOS_UNCLEAR'], catalogue))).toBe(0);
    // Only a note (OTHER): nothing is flagged and the form opens at its start.
    expect(flaggedFields(['OTHER'], catalogue).size).toBe(0);
    expect(firstFlaggedStep(new Set())).toBe(0);
  });
});
