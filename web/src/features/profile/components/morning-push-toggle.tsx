import { useEffect, useState } from 'react';
import { useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { notificationsApi } from '@/features/profile/api/notifications-api';
import { changeOptimistically } from '@/features/profile/lib/optimistic';

/** The morning LINE push "N new introductions today" on or off (APPROVED members; the daily job
 *  reads the setting). The switch moves at once and moves back, with a toast, if the save fails;
 *  it waits for one save before the next, so answers cannot arrive out of order. */
export function MorningPushToggle() {
  const t = useT();
  const [on, setOn] = useState<boolean | null>(null);
  const [saving, setSaving] = useState(false);
  const [unavailable, setUnavailable] = useState(false);

  useEffect(() => {
    let alive = true;
    notificationsApi
      .get()
      .then((s) => alive && setOn(s.introductions))
      .catch((err: unknown) => {
        logger.warn(`notification settings: ${describeError(err)}`);
        if (alive) setUnavailable(true);
      });
    return () => {
      alive = false;
    };
  }, []);

  const change = async (next: boolean) => {
    if (on === null || saving) return;
    setSaving(true);
    const saved = await changeOptimistically(on, next, setOn, (v) => notificationsApi.put({ introductions: v }).then((s) => s.introductions));
    setSaving(false);
    if (!saved) toast.error(t('profile.morningPushFailed'));
  };

  return (
    <div className="card" data-testid="morning-push-card">
      <label className="check morning-push">
        <input
          type="checkbox"
          role="switch"
          checked={on ?? false}
          disabled={on === null}
          aria-busy={saving}
          aria-describedby="morning-push-help"
          onChange={(e) => void change(e.target.checked)}
          data-testid="morning-push"
          data-state={on === null ? 'loading' : on ? 'on' : 'off'}
        />
        <span>{t('profile.morningPush')}</span>
      </label>
      <p id="morning-push-help" className="muted">{unavailable ? t('profile.morningPushUnavailable') : t('profile.morningPushHelp')}</p>
    </div>
  );
}
