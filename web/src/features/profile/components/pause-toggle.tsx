import { useEffect, useState } from 'react';
import { useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { pauseApi } from '@/features/profile/api/notifications-api';
import { changeOptimistically } from '@/features/profile/lib/optimistic';

/** "Take a break": out of everyone's introductions at once and no new ones, matches and chats go
 *  on (APPROVED members). Moves at once and back, with a toast, if the save fails. */
export function PauseToggle() {
  const t = useT();
  const [on, setOn] = useState<boolean | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let alive = true;
    pauseApi
      .get()
      .then((s) => alive && setOn(s.paused))
      .catch((err: unknown) => logger.warn(`pause setting: ${describeError(err)}`));
    return () => {
      alive = false;
    };
  }, []);

  const change = async (next: boolean) => {
    if (on === null || saving) return;
    setSaving(true);
    const saved = await changeOptimistically(on, next, setOn, (v) => pauseApi.put(v).then((s) => s.paused));
    setSaving(false);
    if (!saved) toast.error(t('profile.pauseFailed'));
  };

  return (
    <div className="card" data-testid="pause-card">
      <label className="check morning-push">
        <input
          type="checkbox"
          role="switch"
          checked={on ?? false}
          disabled={on === null}
          aria-busy={saving}
          aria-describedby="pause-help"
          onChange={(e) => void change(e.target.checked)}
          data-testid="pause"
          data-state={on === null ? 'loading' : on ? 'on' : 'off'}
        />
        <span>{t('profile.pause')}</span>
      </label>
      <p id="pause-help" className="muted">{t('profile.pauseHelp')}</p>
    </div>
  );
}
