import { useStore } from '@/lib/store';
import { useT } from '@/lib/i18n';
import { LoadingOverlay } from '@/components/loading-overlay';
import { Toaster } from '@/components/toaster';
import { Spinner } from '@/components/spinner';
import { RouterView, routerStore } from '@/app/router';

/** Root shell (spec §2): loading overlay, page area, toast area. */
export function App() {
  const t = useT();
  const ready = useStore(routerStore, (s) => s.ready);
  return (
    <>
      <a className="skip-link" href="#main">{t('common.skipToContent')}</a>
      <LoadingOverlay visible={!ready} label={t('common.loading')} />
      <main id="main" className="app-main" tabIndex={-1}>
        <RouterView fallback={<Spinner />} />
      </main>
      <Toaster />
    </>
  );
}
