import logoUrl from '@/assets/logo.svg';

/** Full-screen overlay with a pulsing logo, shown until initialisation is done (spec §2). */
export function LoadingOverlay({ visible, label }: { visible: boolean; label: string }) {
  if (!visible) return null;
  return (
    <div className="loading-overlay" role="status" aria-live="polite" aria-busy="true" data-testid="loading-overlay">
      <img className="loading-logo" src={logoUrl} alt="" width="72" height="72" />
      <span className="sr-only">{label}</span>
    </div>
  );
}
