import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { deleteAccount } from '@/features/profile/api/profile-api';

/** Deleting the account, after a confirmation that says what happens. */
export function DeleteAccountCard() {
  const t = useT();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  const remove = async () => {
    setBusy(true);
    try {
      await deleteAccount();
      await navigate('/signed-out?left=1', { replace: true });
    } catch (err) {
      logger.warn(`account deletion failed: ${describeError(err)}`);
      toast.error(t('profile.deleteFailed'));
      setBusy(false);
    }
  };

  return (
    <div className="card delete-account-card" data-testid="delete-account-card">
      <h2>{t('profile.deleteTitle')}</h2>
      {confirming ? (
        <div className="notice notice-error" role="group" aria-labelledby="delete-account-help">
          <p id="delete-account-help">{t('profile.deleteHelp')}</p>
          <div className="sign-out-actions">
            <button type="button" className="btn" onClick={() => setConfirming(false)} disabled={busy}>
              {t('common.cancel')}
            </button>
            <button type="button" className="btn btn-danger" onClick={() => void remove()} disabled={busy} data-testid="delete-account-confirm">
              {busy ? t('common.processing') : t('profile.deleteConfirm')}
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="btn btn-danger" onClick={() => setConfirming(true)} data-testid="delete-account">
          {t('profile.delete')}
        </button>
      )}
    </div>
  );
}
