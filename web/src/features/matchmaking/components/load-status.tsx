import { useT } from '@/lib/i18n';
import { CardSkeletons } from '@/components/page-frame';
import type { QueryState } from '@/lib/query';
import type { FramePhoto } from '@/lib/frame-photo';

/** What a matchmaking page shows while its data is not there; `photo` in the first card's shape
 *  when it is known already (/today's first card, lib/frame-photo). */
export function LoadStatus({ state, onRetry, photo = null }: { state: QueryState<unknown>; onRetry: () => void; photo?: FramePhoto | null }) {
  const t = useT();
  switch (state.kind) {
    case 'loading':
      // The cards' shapes: the page's frame is on screen at once, what fills it follows.
      return (
        <div role="status" aria-busy="true">
          <span className="sr-only">{t('common.loading')}</span>
          <CardSkeletons photo={photo} />
        </div>
      );
    case 'forbidden':
      return <p className="card" data-testid="mm-forbidden">{t('match.onlyApproved')}</p>;
    case 'gone':
      return <p className="card" data-testid="mm-gone">{t('match.gone')}</p>;
    case 'failed':
      return (
        <div className="card" data-testid="mm-failed">
          <p>{t('match.loadFailed')}</p>
          <button type="button" className="btn" onClick={onRetry}>{t('common.retry')}</button>
        </div>
      );
    default:
      return null;
  }
}
