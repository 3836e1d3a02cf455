import { useT } from '@/lib/i18n';
import { Spinner } from '@/components/spinner';
import type { QueryState } from '@/lib/query';

/** What a matchmaking page shows while its data is not there. */
export function LoadStatus({ state, onRetry }: { state: QueryState<unknown>; onRetry: () => void }) {
  const t = useT();
  switch (state.kind) {
    case 'loading':
      return <Spinner />;
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
