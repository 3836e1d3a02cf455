import type { ComponentType } from 'react';
import type { RouteName } from '@/app/guards/navigation-guard';
import { lazyWithReload } from '@/app/chunk-reload';

/** Spec §2's routes and the later issues' screens, all lazily loaded, no route parameters. */
export interface RouteDef {
  name: RouteName;
  path: string;
  component: ComponentType;
}

export const routes: RouteDef[] = [
  { name: 'index', path: '/', component: lazyWithReload(() => import('@/app/index-page')) },
  { name: 'friend', path: '/friend', component: lazyWithReload(() => import('@/features/friend/components/friend-page')) },
  { name: 'profile', path: '/profile', component: lazyWithReload(() => import('@/features/profile/components/profile-page')) },
  { name: 'register', path: '/register', component: lazyWithReload(() => import('@/features/register/components/register-page')) },
  { name: 'review', path: '/review', component: lazyWithReload(() => import('@/features/review/components/review-page')) },
  { name: 'today', path: '/today', component: lazyWithReload(() => import('@/features/matchmaking/components/today-page')) },
  { name: 'likes', path: '/likes', component: lazyWithReload(() => import('@/features/matchmaking/components/likes-page')) },
  { name: 'matches', path: '/matches', component: lazyWithReload(() => import('@/features/matchmaking/components/matches-page')) },
  // The member is named by the query (`/member?id=12`): routes take no parameters.
  { name: 'member', path: '/member', component: lazyWithReload(() => import('@/features/matchmaking/components/member-page')) },
  // The match is named by the query (`/chat?match=7`).
  { name: 'chat', path: '/chat', component: lazyWithReload(() => import('@/features/matchmaking/components/chat-page')) },
  { name: 'signed-out', path: '/signed-out', component: lazyWithReload(() => import('@/features/profile/components/signed-out-page')) },
  { name: 'dev', path: '/dev', component: lazyWithReload(() => import('@/features/dev/components/dev-page')) },
];

export function matchRoute(pathname: string): RouteDef | null {
  const clean = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return routes.find((r) => r.path === clean) ?? null;
}
