import { useStore } from '@/lib/store';
import { Toaster } from '@/components/toaster';
import { useT } from '@/lib/i18n';
import { PageFrame } from '@/components/page-frame';
import { getUserInfoHint } from '@/lib/auth';
import { matchRoute, TAB_ROUTES } from '@/app/routes';
import { Spinner } from '@/components/spinner';
import { RouterView, routerStore } from '@/app/router';

/** An approved member opening one of the tabs (as the last opening left the cookie) sees the
 *  bottom bar in the frame too. */
function frameHasNav(): boolean {
  const route = matchRoute(location.pathname);
  return Boolean(route && TAB_ROUTES.includes(route.name) && getUserInfoHint()?.status === 'APPROVED');
}

/** Root shell: the start-up's frame, page area, toast area. */
export function App() {
  const t = useT();
  const ready = useStore(routerStore, (s) => s.ready);
  const screen = useStore(routerStore, (s) => (!s.ready ? 'loading' : s.error ? 'error' : (matchRoute(s.pathname)?.name ?? 'error')));
  return (
    <>
      <a className="skip-link" href="#main">{t('common.skipToContent')}</a>
      {/* data-route names the screen on display: the end-to-end harness checks each one it meets. */}
      <main id="main" className="app-main" tabIndex={-1} data-route={screen}>
        {ready ? null : <PageFrame label={t('common.loading')} nav={frameHasNav()} />}
        <RouterView fallback={<Spinner />} />
      </main>
      <Toaster />
    </>
  );
}
