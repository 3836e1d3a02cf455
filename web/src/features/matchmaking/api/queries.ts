import { queryKeys, queryOptions } from '@/lib/query';
import { likesQuery, matchesQuery } from '@/lib/shared-queries';
import { matchmakingApi } from '@/features/matchmaking/api/matchmaking-api';
import { chatApi } from '@/features/matchmaking/api/chat-api';

/** The matchmaking screens' queries: each key with its loader (the lists the tab badges count too
 *  are lib's, shared with the shell). */
export const matchmakingQueries = {
  introductions: queryOptions(queryKeys.introductions, () => matchmakingApi.introductions()),
  likes: likesQuery,
  matches: matchesQuery,
  removalNotices: queryOptions(queryKeys.removalNotices, () => matchmakingApi.removalNotices()),
  weMet: queryOptions(queryKeys.weMet, () => matchmakingApi.weMet()),
  expiredMatches: queryOptions(queryKeys.expiredMatches, () => matchmakingApi.expiredMatches()),
  member: (memberId: number) => queryOptions(queryKeys.member(memberId), () => matchmakingApi.member(memberId)),
  /** A page of a match's messages, loaded with `fetchQuery`: the chat keeps its pages itself. */
  chatPage: (matchId: number, before?: number) =>
    queryOptions(queryKeys.chatPage(matchId, before), () => chatApi.messages(matchId, before)),
};
