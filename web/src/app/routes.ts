import type { RouteName } from '@/app/guards/navigation-guard';
import { lazyWithReload, type LazyScreen } from '@/app/chunk-reload';

/** The app's screens, all lazily loaded, no route parameters. */
export interface RouteDef {
  name: RouteName;
  path: string;
  component: LazyScreen;
}

export const routes: RouteDef[] = [
  { name: 'index', path: '/', component: lazyWithReload(() => import('@/app/index-page')) },
  { name: 'friend', path: '/friend', component: lazyWithReload(() => import('@/features/friend/components/friend-page')) },
  { name: 'profile', path: '/profile', component: lazyWithReload(() => import('@/features/profile/components/profile-page')) },
  { name: 'settings', path: '/settings', component: lazyWithReload(() => import('@/features/profile/components/settings-page')) },
  { name: 'register', path: '/register', component: lazyWithReload(() => import('@/features/register/components/register-page')) },
  { name: 'review', path: '/review', component: lazyWithReload(() => import('@/features/review/components/review-page')) },
  { name: 'today', path: '/today', component: lazyWithReload(() => import('@/features/matchmaking/components/today-page')) },
  { name: 'likes', path: '/likes', component: lazyWithReload(() => import('@/features/matchmaking/components/likes-page')) },
  { name: 'matches', path: '/matches', component: lazyWithReload(() => import('@/features/matchmaking/components/matches-page')) },
  // The member is named by the query (`/member?id=12`): routes take no parameters.
  { name: 'member', path: '/member', component: lazyWithReload(() => import('@/features/matchmaking/components/member-page')) },
  // The match is named by the query (`/chat?match=7`).
  { name: 'chat', path: '/chat', component: lazyWithReload(() => import('@/features/matchmaking/components/chat-page')) },
  // The guidelines, safety tips and policies; the topic is named by the query (`/help?topic=terms`).
  { name: 'help', path: '/help', component: lazyWithReload(() => import('@/features/help/components/help-page')) },
  { name: 'signed-out', path: '/signed-out', component: lazyWithReload(() => import('@/features/profile/components/signed-out-page')) },
  { name: 'dev', path: '/dev', component: lazyWithReload(() => import('@/features/dev/components/dev-page')) },
];

export function matchRoute(pathname: string): RouteDef | null {
  const clean = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return routes.find((r) => r.path === clean) ?? null;
}

/** The bottom navigation's screens: once one of them is on screen, the others' code is loaded
 *  while the member looks, so that a tab switch renders at once. */
export const TAB_ROUTES: readonly RouteName[] = ['today', 'likes', 'matches', 'profile'];

export function preloadTabs(): void {
  for (const route of routes) if (TAB_ROUTES.includes(route.name)) void route.component.preload().catch(() => {});
}
