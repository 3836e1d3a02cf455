import { Component, Suspense, type ErrorInfo, type MouseEvent, type ReactNode } from 'react';
import { createStore, useStore } from '@/lib/store';
import { appState } from '@/lib/app-state';
import { apiBase } from '@/lib/config';
import { getMyInfo, getReviewStatus, login } from '@/lib/user-api';
import { describeError, logger } from '@/lib/logger';
import { t } from '@/lib/i18n';
import { navigationGuard, type GuardResult } from '@/app/guards/navigation-guard';
import { decideRouteRule, type RouteRule } from '@/app/guards/route-rules-guard';
import { matchRoute } from '@/app/routes';
import { ErrorPage } from '@/app/error-page';

/** A small history router: lazy routes, the two guards of spec §2, error pages. */
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

async function fetchRouteRule(path: string): Promise<RouteRule | null> {
  try {
    const res = await fetch(`${apiBase()}/route-rules?path=${encodeURIComponent(path)}`, {
      headers: { Accept: 'application/json' },
    });
    if (!res.ok) return null;
    return (await res.json()) as RouteRule;
  } catch (err) {
    logger.warn(`route rules unavailable: ${String(err)}`);
    return null;
  }
}

async function runGuards(url: URL): Promise<GuardResult> {
  const route = matchRoute(url.pathname);
  const state = appState.get();
  // The rules are asked for at once (one round trip less); they are applied after the navigation guard.
  const rule = route?.name === 'dev' ? null : fetchRouteRule(url.pathname);
  const result = await navigationGuard(
    {
      route: route?.name ?? 'not-found',
      liffInit: state.liffInit,
      isLiffStateRedirect: url.searchParams.has('liff.state'),
      isFriend: state.liffIsFriend,
      lineUserId: state.liffUserProfile?.userId ?? null,
    },
    {
      getReviewStatus,
      login: (id) => login(id, { showToast: false }),
      getMyInfo,
      setReviewStatus: (reviewStatus) => appState.set({ reviewStatus }),
    },
  );
  if (result.kind !== 'proceed' || !rule) return result;
  return decideRouteRule(await rule, location.origin);
}

export interface NavigateOptions {
  replace?: boolean;
  /** Popstate: the browser already moved. */
  pop?: boolean;
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
  if (!opts.pop || href !== location.pathname + location.search + location.hash) {
    history[replace || opts.pop ? 'replaceState' : 'pushState'](null, '', href);
  }
  const route = matchRoute(target.pathname);
  routerStore.set({
    pathname: target.pathname,
    search: target.search,
    ready: true,
    navigating: false,
    error: route ? null : { status: 404, message: t('error.pageNotFoundPath', { path: target.pathname }) },
  });
  if (!opts.pop) window.scrollTo?.(0, 0);
}

export function installPopstate(): void {
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

export function Link(props: { to: string; className?: string; children: ReactNode; 'aria-label'?: string }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    void navigate(props.to);
  };
  return (
    <a href={props.to} className={props.className} onClick={onClick} aria-label={props['aria-label']}>
      {props.children}
    </a>
  );
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

export function RouterView({ fallback }: { fallback: ReactNode }) {
  const { pathname, ready, error } = useRoute();
  if (!ready) return null;
  if (error) return <ErrorPage status={error.status} message={error.message} />;
  const route = matchRoute(pathname);
  if (!route) return <ErrorPage status={404} message={t('error.pageNotFoundPath', { path: pathname })} />;
  const Page = route.component;
  return (
    <RouteErrorBoundary resetKey={pathname}>
      <Suspense fallback={fallback}>
        <Page />
      </Suspense>
    </RouteErrorBoundary>
  );
}
