import { appState } from '@/lib/app-state';
import { loadConfig } from '@/lib/config';
import { pickLocale, setLocale, t } from '@/lib/i18n';
import { getLineIdToken, refreshLineIdToken, startLiff } from '@/lib/liff';
import { setIdTokenProvider, setIdTokenRefresher } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { captureStartParams, stripStartParams, takeRedirectPath } from '@/app/start-params';
import { installNavigation, navigate, showFatalError } from '@/app/router';
import { installChunkErrorHandler } from '@/app/chunk-reload';
import { startVersionPolling } from '@/app/version-check';
import { matchRoute } from '@/app/routes';
import { loadCore } from '@/lib/wasm';

function installErrorLogging() {
  window.addEventListener('error', (e) => logger.error(`uncaught: ${describeError(e.error ?? e.message)}`));
  window.addEventListener('unhandledrejection', (e) => logger.error(`unhandled rejection: ${describeError(e.reason)}`));
}

/** Start fetching the page's code (and the wasm core for /register) while LIFF starts up, so the
 *  first render does not wait for one more round trip after the guard. */
function warmRoute(pathname: string) {
  // Spec §9: no prefetching on save-data or 2g connections.
  const connection = (navigator as Navigator & { connection?: { saveData?: boolean; effectiveType?: string } }).connection;
  if (connection?.saveData || connection?.effectiveType?.includes('2g')) return;
  const route = matchRoute(pathname);
  if (route?.name === 'register' || route?.name === 'index') {
    void import('@/features/register/components/register-page').catch(() => {});
    void loadCore().catch(() => {});
  } else if (route?.name === 'profile') {
    void import('@/features/profile/components/profile-page').catch(() => {});
  }
}

/** App start (spec §4), then the first navigation through the guards. */
export async function boot(): Promise<void> {
  installChunkErrorHandler();
  installErrorLogging();
  installNavigation();
  const startUrl = new URL(location.href);
  warmRoute(startUrl.pathname);
  const localeReady = setLocale(pickLocale(navigator.language)).catch(() => {});
  try {
    captureStartParams(startUrl);
    const config = await loadConfig();
    setIdTokenProvider(getLineIdToken);
    setIdTokenRefresher(refreshLineIdToken);
    const result = await startLiff(config);
    if (result.kind === 'redirected') return;
    await localeReady;
    await setLocale(pickLocale(result.language)).catch(() => {});
    appState.set({ liffInit: true, liffUserProfile: result.profile, liffIsFriend: result.isFriend });
    const target = takeRedirectPath() ?? stripStartParams(startUrl);
    await navigate(target, { replace: true });
    startVersionPolling();
  } catch (err) {
    await localeReady;
    logger.error(`start-up failed: ${describeError(err)}`);
    appState.set({ startupError: String(err) });
    showFatalError({ status: 500, message: t('error.startup') });
  }
}
