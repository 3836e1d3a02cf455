import { Component, Suspense, type ErrorInfo, type ReactNode } from 'react';
import { createStore, useStore } from '@/lib/store';
import { appState } from '@/lib/app-state';
import { api } from '@/lib/api-client';
import { getMyInfo, getReviewStatus, login, reviewStatusOf } from '@/lib/user-api';
import { clearSession, getToken, getUserInfoHint, onSessionEnd } from '@/lib/auth';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { completeLocale, t } from '@/lib/i18n';
import { decideAtOnce, navigationGuard, type GuardContext, type GuardResult } from '@/app/guards/navigation-guard';
import { decideRouteRule } from '@/app/guards/route-rules-guard';
import type { RouteRuleBody } from '@/lib/api/types';
import { matchRoute, preloadTabs } from '@/app/routes';
import { MATCHMAKING_ROUTES } from '@/app/guards/navigation-guard';
import { setNavigator, setShownSearch, type NavigateOptions } from '@/lib/navigation';
import { deepLinkReached } from '@/lib/deep-link';
import { ErrorPage } from '@/app/error-page';

/** Routing: every navigation first passes the navigation guards (app/guards/navigation-guard.ts),
 *  and only a location they accepted reaches the store that RouterView draws the lazy screen of. */
export interface AppError {
  status: number;
  message: string;
}

export const routerStore = createStore<{
  pathname: string;
  search: string;
  ready: boolean;
  navigating: boolean;
  error: AppError | null;
}>({ pathname: location.pathname, search: location.search, ready: false, navigating: false, error: null });

let navigationId = 0;
const LATER_MESSAGES_AFTER_MS = 3000;

/** A path's route rule, asked once per few minutes of an opening: a tab switch then waits for no
 *  round trip, and a rule an operator adds still reaches everyone within that time. */
const ROUTE_RULE_KEPT_MS = 5 * 60_000;
const routeRules = new Map<string, { at: number; rule: Promise<RouteRuleBody | null> }>();

function fetchRouteRule(path: string): Promise<RouteRuleBody | null> {
  const kept = routeRules.get(path);
  if (kept && Date.now() - kept.at < ROUTE_RULE_KEPT_MS) return kept.rule;
  const rule = api.get('/route-rules', { query: { path }, public: true, showToast: false }).catch((err: unknown) => {
    logger.warn(`route rules unavailable: ${describeError(err)}`);
    routeRules.delete(path);
    return null;
  });
  routeRules.set(path, { at: Date.now(), rule });
  return rule;
}

/** The LINE user whose session this opening proved (my-info answered under it): later navigations
 *  decide from the review status the app holds, without asking the server. */
let sessionProvedFor: string | null = null;
onSessionEnd(() => {
  sessionProvedFor = null;
});

async function runGuards(url: URL): Promise<GuardResult> {
  const route = matchRoute(url.pathname);
  const state = appState.get();
  const lineUserId = state.liffUserProfile?.userId ?? null;
  const ctx: GuardContext = {
    route: route?.name ?? 'not-found',
    liffInit: state.liffInit,
    isLiffStateRedirect: url.searchParams.has('liff.state'),
    isFriend: state.liffIsFriend,
    lineUserId,
    session: lineUserId && sessionProvedFor === lineUserId ? { lineUserId, status: state.reviewStatus } : null,
  };
  // A visitor on their way to /friend starts no request that the move there would cut off.
  const atOnce = decideAtOnce(ctx);
  if (atOnce?.kind === 'redirect') return atOnce;
  // The rules are asked for at once (one round trip less); they are applied after the navigation guard.
  const rule = route?.name === 'dev' ? null : fetchRouteRule(url.pathname);
  const result = await navigationGuard(ctx, {
    hasToken: () => getToken() !== null,
    wasMember: () => Boolean(getUserInfoHint()?.status),
    getReviewStatus,
    login: (id) => login(id, { showToast: false }),
    getMyInfo: async () => {
      const info = await getMyInfo();
      sessionProvedFor = info.userId;
      return { lineUserId: info.userId, status: reviewStatusOf(info) };
    },
    isRefused: (err) => err instanceof ApiError && err.status === 401,
    endSession: clearSession,
    setReviewStatus: (reviewStatus) => appState.set({ reviewStatus }),
  });
  if (result.kind !== 'proceed' || !rule) return result;
  return decideRouteRule(await rule, location.origin);
}

export async function navigate(to: string, opts: NavigateOptions = {}): Promise<void> {
  const id = ++navigationId;
  let target = new URL(to, location.origin);
  if (target.origin !== location.origin) {
    location.assign(target.href);
    return;
  }
  let replace = Boolean(opts.replace);
  routerStore.set({ navigating: true });
  try {
    for (let hop = 0; hop < 5; hop++) {
      const result = await runGuards(target);
      if (id !== navigationId) return; // superseded by a newer navigation
      if (result.kind === 'proceed') break;
      if (result.external) {
        location.assign(result.to);
        return;
      }
      target = new URL(result.to, location.origin);
      replace = true;
    }
  } catch (err) {
    logger.error(`navigation failed: ${describeError(err)}`);
  }
  const href = target.pathname + target.search + target.hash;
  deepLinkReached(href);
  if (!opts.pop || href !== location.pathname + location.search + location.hash) {
    history[replace || opts.pop ? 'replaceState' : 'pushState'](null, '', href);
  }
  const route = matchRoute(target.pathname);
  if (route?.name === 'register') {
    // A new user's first screen needs only the first part of the catalogue; the rest comes once
    // the form is on screen.
    window.setTimeout(() => void completeLocale().catch(() => {}), LATER_MESSAGES_AFTER_MS);
  } else {
    await completeLocale().catch((err: unknown) => logger.warn(`messages unavailable: ${describeError(err)}`));
    if (id !== navigationId) return;
  }
  setShownSearch(target.search);
  routerStore.set({
    pathname: target.pathname,
    search: target.search,
    ready: true,
    navigating: false,
    error: route ? null : { status: 404, message: t('error.pageNotFoundPath', { path: target.pathname }) },
  });
  if (!opts.pop) window.scrollTo?.(0, 0);
  if (route && (MATCHMAKING_ROUTES.includes(route.name) || route.name === 'profile') && appState.get().reviewStatus?.status === 'APPROVED') warmTabs();
}

let tabsWarmed = false;
/** An approved member's other tabs: their code is loaded once the screen is drawn (not on
 *  save-data or 2g), so a tab switch draws at once. */
function warmTabs() {
  if (tabsWarmed) return;
  const connection = (navigator as Navigator & { connection?: { saveData?: boolean; effectiveType?: string } }).connection;
  if (connection?.saveData || connection?.effectiveType?.includes('2g')) return;
  tabsWarmed = true;
  const idle = window.requestIdleCallback ?? ((run: () => void) => window.setTimeout(run, 200));
  idle(() => preloadTabs());
}

export function installNavigation(): void {
  setNavigator(navigate);
  window.addEventListener('popstate', () => {
    void navigate(location.pathname + location.search + location.hash, { pop: true });
  });
}

export function showFatalError(error: AppError): void {
  routerStore.set({ ready: true, navigating: false, error });
}

export function useRoute() {
  return useStore(routerStore, (s) => s);
}

class RouteErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, { error: unknown }> {
  state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  componentDidCatch(error: unknown, info: ErrorInfo) {
    logger.error(`render error: ${describeError(error)}${info.componentStack?.split('\n').slice(0, 4).join('\n') ?? ''}`);
  }
  componentDidUpdate(prev: { resetKey: string }) {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }
  render() {
    if (this.state.error) return <ErrorPage status={500} message={String((this.state.error as Error)?.message ?? '')} />;
    return this.props.children;
  }
}

/** The screen of the guarded location (the routes take no parameters: an exact path, a trailing
 *  slash accepted), or the 404 page. A new search on the same screen keeps it mounted. */
export function RouterView({ fallback }: { fallback: ReactNode }) {
  const { pathname, ready, error } = useRoute();
  if (!ready) return null;
  if (error) return <ErrorPage status={error.status} message={error.message} />;
  const Screen = matchRoute(pathname)?.component;
  return (
    <RouteErrorBoundary resetKey={pathname}>
      <Suspense fallback={fallback}>
        {Screen ? <Screen /> : <ErrorPage status={404} message={t('error.pageNotFoundPath', { path: pathname })} />}
      </Suspense>
    </RouteErrorBoundary>
  );
}
