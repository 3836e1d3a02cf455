import { createStore } from '@/lib/store';

export interface LiffUserProfile {
  userId: string;
  displayName: string;
  pictureUrl?: string;
  statusMessage?: string;
}

import type { ReviewState, ReviewStatusBody } from '@/lib/api/types';

export type ReviewStatusValue = ReviewState;

/** The review-status answer, its status read as the enum the server's ReviewState declares. */
export type ReviewStatus = Omit<ReviewStatusBody, 'status'> & { status: ReviewStatusValue };

/** Client state: liffInit, liffUserProfile, liffisFriend, userAppReviewStatus. */
export interface AppState {
  liffInit: boolean;
  liffUserProfile: LiffUserProfile | null;
  liffIsFriend: boolean;
  reviewStatus: ReviewStatus | null;
  /** Start-up failed before init was done (shown by the shell instead of a page). */
  startupError: string | null;
}

export const appState = createStore<AppState>({
  liffInit: false,
  liffUserProfile: null,
  liffIsFriend: false,
  reviewStatus: null,
  startupError: null,
});
