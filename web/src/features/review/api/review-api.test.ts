import { describe, expect, it } from 'vitest';
import { actionsFor, picksEmployer } from '@/features/review/api/review-api';

// The console's decisions and its employer question follow kizuna-core (virtual:core-rules).
describe('the review console’s rules', () => {
  it('the console offers the transitions the core allows from each status', () => {
    expect(actionsFor('PENDING')).toEqual(['APPROVE', 'REJECT']);
    expect(actionsFor('APPROVED')).toEqual(['SUSPEND']);
    expect(actionsFor('SUSPENDED')).toEqual(['REINSTATE']);
    expect(actionsFor('REJECTED')).toEqual([]);
    expect(actionsFor('APPROVED', 3)).toEqual(['APPROVE', 'REJECT']);
  });

  it('the reviewer picks the employer for an ID photo or a link, and on a revision only for a new proof', () => {
    const view = (method: string | null, revision: number | null, changedFields: string[]) => ({ revision, changedFields, verification: { method } }) as Parameters<typeof picksEmployer>[0];
    expect(picksEmployer(view('EMPLOYEE_ID', null, []))).toBe(true);
    expect(picksEmployer(view('REVIEW_LINK', null, []))).toBe(true);
    expect(picksEmployer(view('COMPANY_EMAIL', null, []))).toBe(false);
    expect(picksEmployer(view('EMPLOYEE_ID', 2, ['aboutMe']))).toBe(false);
    expect(picksEmployer(view('EMPLOYEE_ID', 2, ['verifyTempFileName']))).toBe(true);
    // Changed: without a method there is nothing the core asks a reviewer to pick for.
    expect(picksEmployer(view(null, null, []))).toBe(false);
  });
});
