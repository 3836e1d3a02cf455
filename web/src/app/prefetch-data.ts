import { prefetch } from '@/lib/query';
import { afterMyInfo } from '@/lib/user-api';
import { matchmakingQueries } from '@/features/matchmaking/api/queries';
import type { RouteName } from '@/app/guards/navigation-guard';

/** How long the answers asked ahead wait for the guard's my-info before they give up (the screen
 *  then asks by itself). */
const MY_INFO_WAIT_MS = 15_000;

/** Whether the guard's my-info says the member is APPROVED: the stored session still lives (a
 *  suspension ends it) and the status lets them have a matchmaking screen. */
function approvedByMyInfo(): Promise<boolean> {
  return Promise.race([
    afterMyInfo().then((status) => status?.status === 'APPROVED'),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), MY_INFO_WAIT_MS)),
  ]);
}

/** An approved member's tab, opened cold: its answers are asked for as soon as the guard's my-info
 *  (the one request that proves the stored session) says the member is APPROVED, while the page's
 *  code is still on its way, rather than once the screen renders. Nothing goes out before: a
 *  suspended member (the last opening's cookie still says APPROVED) asks for nothing they cannot
 *  have, and an ended session fails one request, not three. The match list is the bottom bar's
 *  badge. */
export function prefetchScreen(route: RouteName): void {
  void approvedByMyInfo().then((approved) => {
    if (!approved) return;
    if (route === 'today') prefetch(matchmakingQueries.introductions);
    if (route === 'likes') prefetch(matchmakingQueries.likes);
    prefetch(matchmakingQueries.matches);
  });
}
