import { api } from '@/lib/api-client';

/** The matchmaking API (issue 15; docs/design.md "Matchmaking"). Only APPROVED members: anyone
 *  else gets 403 E004; a member the caller may not see is 404 E003. */
export type DistanceBand = 'UNDER_5_KM' | 'FROM_5_TO_20_KM' | 'FROM_20_TO_50_KM' | 'OVER_50_KM';

/** What one member sees of another, exactly as the server gives it. */
export interface MemberView {
  memberId: number;
  nickname: string;
  age: number;
  city: string;
  distanceBand: DistanceBand | string;
  occupationType: string;
  occupation: string;
  verifiedEmployer: boolean;
  personalityTagIds: number[];
  exerciseTagIds: number[];
  hobbyTagIds: number[];
  marriageTypeTagIds: number[];
  fertilityPlanTagIds: number[];
  petTagIds: number[];
  aboutMe: string;
  datingQuestion: string | null;
  dailyLife: string | null;
  surprisePoint: string | null;
  photoNameList: string[];
}

export type Reaction = 'LIKE' | 'PASS';

export interface Introduction {
  member: MemberView;
  reaction: Reaction | null;
}

export interface Introductions {
  day: string;
  introductions: Introduction[];
}

export interface Liked {
  matched: boolean;
  matchId: number | null;
}

export interface LastMessage {
  text: string;
  sentAt: number;
  mine: boolean;
}

export interface MatchItem {
  matchId: number;
  matchedAt: number;
  member: MemberView;
  /** The conversation's newest message, null before the first. */
  lastMessage: LastMessage | null;
  /** Messages from the other member the caller has not read. */
  unread: number;
}

export interface CodeEntry {
  code: string;
  key: string;
}

const quiet = { showToast: false } as const;

export const matchmakingApi = {
  introductions: () => api.get<Introductions>('/introductions', quiet),
  like: (memberId: number) => api.post<Liked>(`/introductions/${memberId}/like`, undefined, quiet),
  pass: (memberId: number) => api.post<void>(`/introductions/${memberId}/pass`, undefined, quiet),
  member: (memberId: number) => api.get<MemberView>(`/members/${memberId}`, quiet),
  matches: () => api.get<MatchItem[]>('/matches', quiet),
  unmatch: (matchId: number) => api.request<void>(`/matches/${matchId}`, { ...quiet, method: 'DELETE' }),
  block: (memberId: number) => api.post<void>('/blocks', { memberId }, quiet),
  report: (memberId: number, reasons: string[], text?: string) =>
    api.post<{ reportId: number }>('/reports', text ? { memberId, reasons, text } : { memberId, reasons }, quiet),
  reportReasons: () => api.get<{ report: CodeEntry[] }>('/catalogue/codes', { ...quiet, public: true }).then((c) => c.report),
};
