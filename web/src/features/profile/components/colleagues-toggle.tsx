import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { invalidate, queryKeys, useQuery } from '@/lib/query';
import { colleaguesApi } from '@/features/profile/api/notifications-api';
import { changeOptimistically } from '@/features/profile/lib/optimistic';

/** "Never introduce me to people of my employer" (APPROVED members; on unless switched off).
 *  Says what it does, and that it waits for review while no employer is on record. */
export function ColleaguesToggle() {
  const t = useT();
  const [state, , set] = useQuery(queryKeys.colleagues, colleaguesApi.get);
  const [saving, setSaving] = useState(false);
  const on = state.kind === 'ok' ? state.value.hideColleagues : null;
  const onRecord = state.kind === 'ok' ? state.value.employerOnRecord : true;

  const change = async (next: boolean) => {
    if (state.kind !== 'ok' || saving) return;
    setSaving(true);
    const saved = await changeOptimistically(state.value, { ...state.value, hideColleagues: next }, set, () => colleaguesApi.put(next));
    setSaving(false);
    if (saved) invalidate(queryKeys.introductions);
    else toast.error(t('profile.colleaguesFailed'));
  };

  return (
    <div className="card" data-testid="colleagues-card">
      <label className="check morning-push">
        <input
          type="checkbox"
          role="switch"
          checked={on ?? false}
          disabled={on === null}
          aria-busy={saving}
          aria-describedby="colleagues-help"
          onChange={(e) => void change(e.target.checked)}
          data-testid="hide-colleagues"
          data-state={on === null ? 'loading' : on ? 'on' : 'off'}
        />
        <span>{t('profile.colleagues')}</span>
      </label>
      <p id="colleagues-help" className="muted">
        {t('profile.colleaguesHelp')}
        {onRecord ? null : ` ${t('profile.colleaguesNoEmployer')}`}
      </p>
    </div>
  );
}
