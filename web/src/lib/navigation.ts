import { createStore, useStore } from '@/lib/store';

/** Navigation as the features see it. The app shell installs the guarded navigator at start-up;
 *  features call `navigate` here and so never import from `app/`. */
export interface NavigateOptions {
  replace?: boolean;
  /** Popstate: the browser already moved. */
  pop?: boolean;
}

export type Navigator = (to: string, opts?: NavigateOptions) => Promise<void>;

// Before the shell installs its navigator (unit tests, a crash during start-up) a plain page load
// is the safe fallback: the guards run again on the next start.
let current: Navigator = async (to, opts) => {
  if (opts?.replace) location.replace(to);
  else location.assign(to);
};

export function setNavigator(navigator: Navigator): void {
  current = navigator;
}

// The screen a navigation of the app left (path and query); null after a page load.
let left: string | null = null;

export function navigate(to: string, opts: NavigateOptions = {}): Promise<void> {
  // On Back the browser has moved already: what is left is not known, and not needed.
  if (!opts.pop && typeof location !== 'undefined') left = location.pathname + location.search;
  return current(to, opts);
}

/** The screen the last navigation inside the app came from (a way back that is not the
 *  browser's history, which a screen's own links fill up), or null. */
export function cameFrom(): string | null {
  return left;
}

/** The query string of the screen on display. The browser's `location` moves first on Back (the
 *  screen being left would read the next one's query and show "no longer available" for a frame);
 *  this one moves when the guards have let the navigation through and the next screen is drawn. */
const shown = createStore({ search: typeof location === 'undefined' ? '' : location.search });

export function setShownSearch(search: string): void {
  if (shown.get().search !== search) shown.set({ search });
}

export function useShownSearch(): string {
  return useStore(shown, (s) => s.search);
}
