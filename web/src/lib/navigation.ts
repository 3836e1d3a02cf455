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

export function navigate(to: string, opts: NavigateOptions = {}): Promise<void> {
  return current(to, opts);
}
