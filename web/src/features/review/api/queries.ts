import { ApiError } from '@/lib/api-client';
import { describeError } from '@/lib/logger';
import { queryKeys, queryOptions } from '@/lib/query';
import { reviewApi, type ReviewView } from '@/features/review/api/review-api';

/** A profile as a reviewer opens it, and why it could not be held for them, if it could not. */
export interface OpenedProfile {
  view: ReviewView;
  claimNote: string | null;
}

/** Opening a profile that waits for a decision (PENDING, or a revision) holds it for this reviewer
 *  (kizuna-core's `REVIEW_CLAIM_SECS`), unless someone else holds it; the view is then asked again
 *  so that it shows the hold. */
async function openProfile(profileId: number): Promise<OpenedProfile> {
  let view = await reviewApi.view(profileId);
  let claimNote: string | null = null;
  if ((view.status === 'PENDING' || view.revision != null) && !(view.claim && !view.claim.mine)) {
    try {
      await reviewApi.claim(profileId);
      view = await reviewApi.view(profileId);
    } catch (err) {
      claimNote = err instanceof ApiError ? err.causeText : describeError(err);
    }
  }
  return { view, claimNote };
}

/** The review console's queries: each key with its loader. */
export const reviewQueries = {
  queue: queryOptions(queryKeys.reviewQueue, () => reviewApi.queue()),
  reports: queryOptions(queryKeys.reviewReports, () => reviewApi.reports()),
  flagged: queryOptions(queryKeys.reviewFlagged, () => reviewApi.flagged()),
  appeals: queryOptions(queryKeys.reviewAppeals, () => reviewApi.appeals()),
  employersMissing: queryOptions(queryKeys.reviewEmployersMissing, () => reviewApi.employersMissing()),
  profile: (profileId: number) => queryOptions(queryKeys.reviewProfile(profileId), () => openProfile(profileId)),
};
