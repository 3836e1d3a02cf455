import { appState } from '@/lib/app-state';
import { loadConfig } from '@/lib/config';
import { completeLocale, pickLocale, setLocale, t } from '@/lib/i18n';
import { getUserInfoHint } from '@/lib/auth';
import { getLineIdToken, refreshLineIdToken, startLiff } from '@/lib/liff';
import { setIdTokenProvider, setIdTokenRefresher } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { captureStartParams, stripStartParams, takePushVisit } from '@/app/start-params';
import { api } from '@/lib/api-client';
import { peekDeepLink } from '@/lib/deep-link';
import { installNavigation, navigate, showFatalError } from '@/app/router';
import { installChunkErrorHandler } from '@/app/chunk-reload';
import { matchRoute, TAB_ROUTES } from '@/app/routes';
import { loadCore } from '@/lib/wasm';
import { readRaw, StorageKey } from '@/lib/storage';

/** The version poll's first check is an hour away (or the next return to the app): its code loads
 *  after the first screen rather than with it. */
const VERSION_POLLING_AFTER_MS = 10_000;

function installErrorLogging() {
  window.addEventListener('error', (e) => logger.error(`uncaught: ${describeError(e.error ?? e.message)}`));
  window.addEventListener('unhandledrejection', (e) => logger.error(`unhandled rejection: ${describeError(e.reason)}`));
}

/** Start fetching the page's code (and the wasm core, when /register needs it to draw) while the
 *  guards ask the server, so the first render does not wait for one more round trip after them. */
function warmRoute(pathname: string) {
  // No prefetching on save-data or 2g connections.
  const connection = (navigator as Navigator & { connection?: { saveData?: boolean; effectiveType?: string } }).connection;
  if (connection?.saveData || connection?.effectiveType?.includes('2g')) return;
  const route = matchRoute(pathname);
  if (route?.name === 'register' || route?.name === 'index') {
    void import('@/features/register/components/register-page').catch(() => {});
    // A new member's first step is drawn without the core (it loads on the first touch of the
    // form); a stored draft or a resubmission is read back by the core before anything is drawn.
    if (readRaw(StorageKey.registerForm) !== null || getUserInfoHint()?.status === 'REJECTED') void loadCore().catch(() => {});
    return;
  }
  // Every other screen waits for the whole message catalogue: it comes beside the guard's calls.
  void completeLocale().catch(() => {});
  if (route?.name === 'profile') void import('@/features/profile/components/profile-page').catch(() => {});
  // An approved member's tab (as the last opening's cookie says): its code now, its answers as
  // soon as the guard's my-info says the member still is APPROVED.
  if (route && TAB_ROUTES.includes(route.name) && getUserInfoHint()?.status === 'APPROVED') {
    void route.component.preload().catch(() => {});
    void import('@/app/prefetch-data').then((m) => m.prefetchScreen(route.name)).catch(() => {});
  }
}

/** App start, then the first navigation through the guards. */
export async function boot(): Promise<void> {
  installChunkErrorHandler();
  installErrorLogging();
  installNavigation();
  const startUrl = new URL(location.href);
  const localeReady = setLocale(pickLocale(navigator.language)).catch(() => {});
  try {
    captureStartParams(startUrl);
    const config = await loadConfig();
    setIdTokenProvider(getLineIdToken);
    setIdTokenRefresher(refreshLineIdToken);
    const result = await startLiff(config);
    if (result.kind === 'redirected') return;
    // A push's link was opened: counted by its kind only, before (and whatever) the member is.
    const via = takePushVisit();
    if (via) void api.post('/visits', { body: { via }, public: true, showToast: false }).catch(() => {});
    await localeReady;
    await setLocale(pickLocale(result.language)).catch(() => {});
    appState.set({ liffInit: true, liffUserProfile: result.profile, liffIsFriend: result.isFriend });
    // Only now: a non-friend goes to /friend, which needs neither the page's code nor the wasm.
    if (result.isFriend) warmRoute(startUrl.pathname);
    // The link stays stored until a navigation reaches it (router), e.g. after registering.
    const target = peekDeepLink() ?? stripStartParams(startUrl);
    await navigate(target, { replace: true });
    window.setTimeout(() => {
      import('@/app/version-check').then((m) => m.startVersionPolling()).catch(() => {});
    }, VERSION_POLLING_AFTER_MS);
  } catch (err) {
    await localeReady;
    logger.error(`start-up failed: ${describeError(err)}`);
    appState.set({ startupError: String(err) });
    showFatalError({ status: 500, message: t('error.startup') });
  }
}
