import { describe, expect, it } from 'vitest';
import { errorsOfStep, REVIEW_STEP, stepOfField, STEPS } from '@/features/register/lib/steps';

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
});
