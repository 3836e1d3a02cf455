import { CircleHelp } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';

/** /profile's way to the help and rules: one row that opens the index. */
export function HelpCard() {
  const t = useT();
  return (
    <a
      className="card help-card"
      href="/help"
      data-testid="profile-help"
      onClick={(e) => {
        e.preventDefault();
        void navigate('/help');
      }}
    >
      <CircleHelp aria-hidden="true" />
      <span>
        <strong>{t('help.title')}</strong>
        <span className="muted">{t('profile.helpLinks')}</span>
      </span>
    </a>
  );
}
