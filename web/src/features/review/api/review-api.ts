import { api } from '@/lib/api-client';
import type { Schemas } from '@/lib/api/types';

/** The reviewer API (issue 14; docs/design.md "Review"). Every call is checked on the server:
 *  a member gets 403 E004. */
export type ReviewState = 'PENDING' | 'APPROVED' | 'REJECTED' | 'SUSPENDED';
export type DecisionAction = 'APPROVE' | 'REJECT' | 'SUSPEND' | 'REINSTATE';

export interface ClaimInfo {
  mine: boolean;
  claimedAt: number;
  expiresAt: number;
}

export interface QueueItem {
  profileId: number;
  nickname: string | null;
  submittedAt: number;
  waitedSecs: number;
  resubmission: boolean;
  submission: number;
  version: number;
  claim: ClaimInfo | null;
}

export interface HistoryEntry {
  at: number;
  action: string | null;
  fromStatus: string | null;
  toStatus: string;
  reasons: string[];
  note: string | null;
  reviewer: string | null;
}

export type ProfilePayload = Record<string, unknown>;

export interface ReviewView {
  profileId: number;
  status: ReviewState;
  version: number;
  submittedAt: number;
  submission: number;
  resubmission: boolean;
  changedFields: string[];
  profile: ProfilePayload;
  previousProfile: ProfilePayload | null;
  photos: string[];
  verification: {
    method: string | null;
    companyEmail: string | null;
    employer: { id: string; name: string } | null;
    emailConfirmed: boolean;
    emailConfirmedAt: number | null;
    fileId: string | null;
    reviewLink: string | null;
    description: string | null;
  };
  member: { displayName: string | null; locale: string; friend: boolean | null; registeredAt: number };
  history: HistoryEntry[];
  claim: ClaimInfo | null;
}

export interface CodeEntry {
  code: string;
  key: string;
}

export interface CodeCatalogues {
  reject: CodeEntry[];
  suspend: CodeEntry[];
  report: CodeEntry[];
}

/** One message of the reported pair's conversation (`from` is `reporter` or `reported`). */
export type ConversationLine = Schemas['ConversationLine'];

/** An open report (GET /review/reports), with the last 50 messages of the pair's match, oldest first. */
export type ReportItem = Schemas['ReportItem'];

export interface DecisionBody {
  action: DecisionAction;
  reasons: string[];
  note?: string;
  version: number;
}

const quiet = { showToast: false } as const;

export const reviewApi = {
  queue: () => api.get<{ items: QueueItem[]; now: number }>('/review/queue', quiet),
  view: (id: number) => api.get<ReviewView>(`/review/profiles/${id}`, quiet),
  claim: (id: number) => api.post<{ version: number; expiresAt: number }>(`/review/profiles/${id}/claim`, undefined, quiet),
  release: (id: number) => api.request<void>(`/review/profiles/${id}/claim`, { ...quiet, method: 'DELETE' }),
  decide: (id: number, body: DecisionBody) =>
    api.post<{ status: ReviewState; version: number }>(`/review/profiles/${id}/decision`, body, quiet),
  reports: () => api.get<{ items: ReportItem[]; now: number }>('/review/reports', quiet),
  dismiss: (reportId: number) => api.post<{ reportId: number }>(`/review/reports/${reportId}/dismiss`, undefined, quiet),
  codes: () => api.get<CodeCatalogues>('/catalogue/codes', { ...quiet, public: true }),
};

/** The actions kizuna-core allows from a status (the server checks again). */
export function actionsFor(status: ReviewState): DecisionAction[] {
  switch (status) {
    case 'PENDING':
      return ['APPROVE', 'REJECT'];
    case 'APPROVED':
      return ['SUSPEND'];
    case 'SUSPENDED':
      return ['REINSTATE'];
    default:
      return [];
  }
}
