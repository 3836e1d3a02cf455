import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { invalidate, queryKeys, useQuery } from '@/lib/query';
import { pauseApi } from '@/features/profile/api/notifications-api';
import { changeOptimistically } from '@/features/profile/lib/optimistic';

/** "Take a break": out of everyone's introductions at once and no new ones, matches and chats go
 *  on (APPROVED members). Moves at once and back, with a toast, if the save fails. */
export function PauseToggle() {
  const t = useT();
  const [state, , set] = useQuery(queryKeys.pause, pauseApi.get);
  const [saving, setSaving] = useState(false);
  const on = state.kind === 'ok' ? state.value.paused : null;

  const change = async (next: boolean) => {
    if (state.kind !== 'ok' || saving) return;
    setSaving(true);
    const saved = await changeOptimistically(state.value, { ...state.value, paused: next }, set, () => pauseApi.put(next));
    setSaving(false);
    if (saved) invalidate(queryKeys.introductions);
    else toast.error(t('profile.pauseFailed'));
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
