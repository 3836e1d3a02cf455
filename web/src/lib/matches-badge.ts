import { useQuery } from '@/lib/query';
import { likesQuery, matchesQuery } from '@/lib/shared-queries';
import type { Schemas } from '@/lib/api/types';

/** The count on the Matches tab: matches with something the member has not seen yet (a match
 *  never opened, or messages after their read marker). */
export function matchesBadge(matches: readonly Pick<Schemas['MatchItem'], 'isNew' | 'unread'>[]): number {
  return matches.filter((m) => m.isNew || m.unread > 0).length;
}

/** The Matches tab's count, from the match list every screen shares (the matches screen and the
 *  chat keep it current); 0 until it is known. `skip`: the screen counts itself. */
export function useMatchesBadge(skip: boolean): number {
  const [state] = useQuery(skip ? null : matchesQuery);
  return state.kind === 'ok' ? matchesBadge(state.value) : 0;
}

/** The Likes tab's count: the likes received that wait for an answer ("Liked you"); 0 until it
 *  is known. `skip`: the screen counts itself (/likes, which has the list). */
export function useLikesBadge(skip: boolean): number {
  const [state] = useQuery(skip ? null : likesQuery);
  return state.kind === 'ok' ? state.value.received.length : 0;
}
