import { api } from '@/lib/api-client';
import type { Schemas } from '@/lib/api/types';

/** The matchmaking API (docs/design.md "Matchmaking"). Only APPROVED members: anyone
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
/** A member's profile page: the member, the caller's answer, their like, the pair's live match. */
export type MemberProfile = Schemas['MemberProfile'];
/** A like as its receiver or sender sees it: when, and its comment on one photo or answer. */
export type LikeView = Schemas['LikeView'];
export type LikeItem = Schemas['LikeItem'];
/** "Likes you sent" and "Liked you" (only members already among the caller's introductions). */
export type Likes = Schemas['Likes'];
/** A like's comment as sent: its text about one photo (`photoName`) or one Q&A answer (`answer`). */
export type LikeComment = Schemas['LikeCommentBody'];
export type LastMessage = Schemas['LastMessage'];
/** A live match: the conversation's newest message (null before the first) and the count of the
 *  other member's messages the caller has not read. */
export type MatchItem = Schemas['MatchItem'];
/** A match that closed because nobody wrote within 7 days: the other member's nickname only. */
export type ExpiredMatch = Schemas['ExpiredMatchView'];
export type CodeEntry = Schemas['CodeEntryBody'];
/** That someone the caller was matched with was removed: the ended match, the nickname they knew
 *  (null once that member left Kizuna) and when; nothing of the decision. */
export type RemovalNotice = Schemas['RemovalNoticeView'];
/** "Did you meet <nickname>?": a question the member is due about one live match. */
export type WeMetQuestion = Schemas['WeMetQuestion'];
/** The member's answer: `seeAgain` only after a yes (required then). */
export type WeMetAnswer = Schemas['WeMetAnswerBody'];

const quiet = { showToast: false } as const;

export const matchmakingApi = {
  introductions: () => api.get('/introductions', quiet),
  /** A like, with a comment on one of the member's photos or answers when there is one. */
  like: (memberId: number, comment?: LikeComment) =>
    api.post('/introductions/{memberId}/like', { ...quiet, path: { memberId }, ...(comment ? { body: { comment } } : {}) }),
  pass: (memberId: number) => api.post('/introductions/{memberId}/pass', { ...quiet, path: { memberId } }),
  /** Takes a pass back (within 10 s on the server's clock; 409 E005 after). */
  undoPass: (memberId: number) => api.delete('/introductions/{memberId}/pass', { ...quiet, path: { memberId } }),
  /** PUT /user/pause {paused: false}: back from a break (taking one is /profile's switch). */
  resume: () => api.put('/user/pause', { ...quiet, body: { paused: false } }),
  member: (memberId: number) => api.get('/members/{memberId}', { ...quiet, path: { memberId } }),
  removalNotices: () => api.get('/removal-notices', quiet),
  /** Matches that closed because nobody wrote, listed for 14 days after. */
  expiredMatches: () => api.get('/expired-matches', quiet),
  /** Remembered on the server for good. */
  dismissRemovalNotice: (matchId: number) => api.post('/removal-notices/{matchId}/dismiss', { ...quiet, path: { matchId } }),
  weMet: () => api.get('/we-met', quiet),
  /** Stored once; the same answer again is fine, another one 409 E005. */
  answerWeMet: (matchId: number, answer: WeMetAnswer) => api.post('/we-met/{matchId}', { ...quiet, path: { matchId }, body: answer }),
  unmatch: (matchId: number) => api.delete('/matches/{matchId}', { ...quiet, path: { matchId } }),
  block: (memberId: number) => api.post('/blocks', { ...quiet, body: { memberId } }),
  report: (memberId: number, reasons: string[], text?: string) =>
    api.post('/reports', { ...quiet, body: text ? { memberId, reasons, text } : { memberId, reasons } }),
};
