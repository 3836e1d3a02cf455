import { BadgeCheck } from 'lucide-react';
import { useT } from '@/lib/i18n';

/** The verified badge: every member shown was approved by a reviewer who checked their proof of
 *  employment (the employer and the proof stay private). `explained` adds the one-line meaning. */
export function Verified({ name, explained = false }: { name: string; explained?: boolean }) {
  const t = useT();
  if (!explained) {
    return (
      <span className="verified" data-testid="verified-employer">
        <BadgeCheck aria-hidden="true" />
        {t('match.verified')}
      </span>
    );
  }
  return (
    <p className="verified-line" data-testid="verified-employer">
      <span className="verified">
        <BadgeCheck aria-hidden="true" />
        {t('match.verified')}
      </span>
      <small data-testid="verified-explained">{t('match.verifiedExplained', { name })}</small>
    </p>
  );
}
