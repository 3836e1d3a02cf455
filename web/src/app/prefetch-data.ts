import { prefetch, queryKeys, type QueryKey } from '@/lib/query';
import { ApiError } from '@/lib/api-client';
import { getToken } from '@/lib/auth';
import { afterNextLogin } from '@/lib/user-api';
import { matchmakingApi } from '@/features/matchmaking/api/matchmaking-api';
import type { RouteName } from '@/app/guards/navigation-guard';

/** How long a request asked ahead waits for the guard's login before it gives up (the screen then
 *  asks by itself). */
const LOGIN_WAIT_MS = 15_000;

function afterLogin(): Promise<void> {
  return Promise.race([
    afterNextLogin(),
    new Promise<void>((_, reject) => setTimeout(() => reject(new Error('no login came')), LOGIN_WAIT_MS)),
  ]);
}

/** Asks for `load` now, beside the guard's my-info (with the stored session), or as soon as the
 *  guard's login has a session: a refused session waits for that login and asks once more. */
function ahead<T>(key: QueryKey, load: () => Promise<T>) {
  const once = () => (getToken() ? load() : afterLogin().then(load));
  prefetch(key, () =>
    once().catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 401) return afterLogin().then(load);
      throw err;
    }),
  );
}

/** An approved member's tab, opened cold: its answers are asked for while the guard and the
 *  page's code are on their way, not one after another. The match list is the bottom bar's badge. */
export function prefetchScreen(route: RouteName): void {
  if (route === 'today') ahead(queryKeys.introductions, matchmakingApi.introductions);
  if (route === 'likes') ahead(queryKeys.likes, matchmakingApi.likes);
  ahead(queryKeys.matches, matchmakingApi.matches);
}
