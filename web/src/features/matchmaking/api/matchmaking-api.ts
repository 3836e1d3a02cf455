import { api } from '@/lib/api-client';
import type { Schemas } from '@/lib/api/types';

/** The matchmaking API (issue 15; docs/design.md "Matchmaking"). Only APPROVED members: anyone
 *  else gets 403 E004; a member the caller may not see is 404 E003. Every shape is the server's,
 *  generated from its OpenAPI document: a field renamed on the server fails the web's type check.
 *  (A field the server types `Option` is absent from the generated type's required keys and arrives
 *  as null; test it with `== null` / `??`.) */
/** What one member sees of another (`distanceBand` is a code of the `distanceBands` catalogue). */
export type MemberView = Schemas['MemberView'];
/** An introduction and the caller's answer so far (`reaction`: LIKE, PASS or null). */
export type Introduction = Schemas['Introduction'];
export type Introductions = Schemas['Introductions'];
export type Liked = Schemas['Liked'];
export type LastMessage = Schemas['LastMessage'];
/** A live match: the conversation's newest message (null before the first) and the count of the
 *  other member's messages the caller has not read. */
export type MatchItem = Schemas['MatchItem'];
export type CodeEntry = Schemas['CodeEntryBody'];
type CodeCatalogues = Schemas['CodeCataloguesBody'];
type ReportBody = Schemas['ReportBody'];
type BlockBody = Schemas['BlockBody'];

const quiet = { showToast: false } as const;

export const matchmakingApi = {
  introductions: () => api.get<Introductions>('/introductions', quiet),
  like: (memberId: number) => api.post<Liked>(`/introductions/${memberId}/like`, undefined, quiet),
  pass: (memberId: number) => api.post<void>(`/introductions/${memberId}/pass`, undefined, quiet),
  /** PUT /user/pause {paused: false}: back from a break (taking one is /profile's switch). */
  resume: () => api.put<Schemas['PauseState']>('/user/pause', { paused: false } satisfies Schemas['PauseBody'], quiet),
  member: (memberId: number) => api.get<MemberView>(`/members/${memberId}`, quiet),
  matches: () => api.get<MatchItem[]>('/matches', quiet),
  unmatch: (matchId: number) => api.request<void>(`/matches/${matchId}`, { ...quiet, method: 'DELETE' }),
  block: (memberId: number) => api.post<void>('/blocks', { memberId } satisfies BlockBody, quiet),
  report: (memberId: number, reasons: string[], text?: string) =>
    api.post<Schemas['Reported']>('/reports', (text ? { memberId, reasons, text } : { memberId, reasons }) satisfies ReportBody, quiet),
  reportReasons: () => api.get<CodeCatalogues>('/catalogue/codes', { ...quiet, public: true }).then((c) => c.report),
};
