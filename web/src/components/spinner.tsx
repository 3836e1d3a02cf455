import { useT } from '@/lib/i18n';

export function Spinner({ label }: { label?: string }) {
  const t = useT();
  return (
    <div className="spinner-wrap" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span className="sr-only">{label ?? t('common.loading')}</span>
    </div>
  );
}
