import '@/features/profile/components/profile.css';
import { ChevronLeft } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { useStore } from '@/lib/store';
import { appState } from '@/lib/app-state';
import { BottomNav } from '@/components/bottom-nav';
import { MorningPushToggle, PushToggle } from '@/features/profile/components/morning-push-toggle';
import { SignOutCard } from '@/features/profile/components/sign-out-card';
import { DeleteAccountCard } from '@/features/profile/components/delete-account-card';
import { DataExportCard } from '@/features/profile/components/data-export-card';
import { PauseToggle } from '@/features/profile/components/pause-toggle';
import { ColleaguesToggle } from '@/features/profile/components/colleagues-toggle';
import { HelpCard } from '@/features/profile/components/help-card';

/** /settings, behind /profile's one entry: how the member takes part (a break, colleagues), the
 *  LINE notifications, as switches, then help and the account (sign out, the data, deleting it).
 *  Only an approved member takes part in matchmaking, so the first two groups are theirs alone. */
export default function SettingsPage() {
  const t = useT();
  const reviewStatus = useStore(appState, (s) => s.reviewStatus);
  const approved = String(reviewStatus?.status ?? '').toUpperCase() === 'APPROVED';
  return (
    <section className={`page settings-page${approved ? ' with-bottom-nav' : ''}`} aria-labelledby="settings-title" data-testid="settings-page">
      <a
        className="settings-back"
        href="/profile"
        data-testid="settings-back"
        onClick={(e) => {
          e.preventDefault();
          void navigate('/profile');
        }}
      >
        <ChevronLeft aria-hidden="true" />
        {t('settings.back')}
      </a>
      <h1 id="settings-title">{t('settings.title')}</h1>
      {approved ? (
        <section className="settings-group" aria-labelledby="settings-matching">
          <h2 id="settings-matching">{t('settings.matching')}</h2>
          <PauseToggle />
          <ColleaguesToggle />
        </section>
      ) : null}
      {approved ? (
        <section className="settings-group" aria-labelledby="settings-notifications">
          <h2 id="settings-notifications">{t('settings.notifications')}</h2>
          <MorningPushToggle />
          <PushToggle kind="matches" />
          <PushToggle kind="messages" />
        </section>
      ) : null}
      <section className="settings-group" aria-labelledby="settings-help">
        <h2 id="settings-help">{t('settings.help')}</h2>
        <HelpCard />
      </section>
      <section className="settings-group" aria-labelledby="settings-account">
        <h2 id="settings-account">{t('settings.account')}</h2>
        <SignOutCard />
        <DataExportCard />
        <DeleteAccountCard />
      </section>
      {approved ? <BottomNav current="profile" /> : null}
    </section>
  );
}
