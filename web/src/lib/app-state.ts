import { createStore } from '@/lib/store';

export interface LiffUserProfile {
  userId: string;
  displayName: string;
  pictureUrl?: string;
  statusMessage?: string;
}

export type ReviewStatusValue = 'PENDING' | 'APPROVED' | 'REJECTED' | 'SUSPENDED';

export interface ReviewStatus {
  status: ReviewStatusValue;
  reason?: string | null;
  /** The standing decision's reason codes (issue 14) and the reviewer's note to the member. */
  reasons?: string[];
  note?: string | null;
  [extra: string]: unknown;
}

/** Client state of spec §3: liffInit, liffUserProfile, liffisFriend, userAppReviewStatus. */
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
