import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { signOut, signOutEverywhere } from '@/features/profile/api/profile-api';

/** Signing out of this device, or of every device after a second tap that says what it does. */
export function SignOutCard() {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
      await navigate('/signed-out', { replace: true });
    } catch (err) {
      logger.warn(`sign-out failed: ${describeError(err)}`);
      toast.error(t('profile.signOutFailed'));
      setBusy(false);
    }
  };

  return (
    <div className="card sign-out-card" data-testid="sign-out-card">
      <h2>{t('profile.signInOut')}</h2>
      <button type="button" className="btn" onClick={() => void run(signOut)} disabled={busy} data-testid="sign-out">
        {t('profile.signOut')}
      </button>
      {confirming ? (
        <div className="notice" role="group" aria-labelledby="sign-out-everywhere-help">
          <p id="sign-out-everywhere-help">{t('profile.signOutEverywhereHelp')}</p>
          <div className="sign-out-actions">
            <button type="button" className="btn" onClick={() => setConfirming(false)} disabled={busy}>
              {t('common.cancel')}
            </button>
            <button type="button" className="btn btn-danger" onClick={() => void run(signOutEverywhere)} disabled={busy} data-testid="sign-out-everywhere-confirm">
              {t('profile.signOutEverywhere')}
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="btn" onClick={() => setConfirming(true)} disabled={busy} data-testid="sign-out-everywhere">
          {t('profile.signOutEverywhere')}
        </button>
      )}
    </div>
  );
}
