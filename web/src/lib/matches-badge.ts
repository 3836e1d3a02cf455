import { api } from '@/lib/api-client';
import { queryKeys, useQuery } from '@/lib/query';
import type { Schemas } from '@/lib/api/types';

/** The count on the Matches tab: matches with something the member has not seen yet (a match
 *  never opened, or messages after their read marker). */
export function matchesBadge(matches: readonly Pick<Schemas['MatchItem'], 'isNew' | 'unread'>[]): number {
  return matches.filter((m) => m.isNew || m.unread > 0).length;
}

/** The Matches tab's count, from the match list every screen shares (the matches screen and the
 *  chat keep it current); 0 until it is known. `skip`: the screen counts itself. */
export function useMatchesBadge(skip: boolean): number {
  const [state] = useQuery(skip ? null : queryKeys.matches, () => api.get('/matches', { showToast: false }));
  return state.kind === 'ok' ? matchesBadge(state.value) : 0;
}
