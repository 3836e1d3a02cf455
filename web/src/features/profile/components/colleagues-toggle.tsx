import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { invalidate, queryKeys, useQuery } from '@/lib/query';
import { colleaguesApi } from '@/features/profile/api/notifications-api';
import { changeOptimistically } from '@/features/profile/lib/optimistic';
import { SwitchCard } from '@/features/profile/components/switch-card';
import { profileQueries } from '@/features/profile/api/queries';

/** "Never introduce me to people of my employer" (APPROVED members; on unless switched off).
 *  Says what it does, and that it waits for review while no employer is on record. */
export function ColleaguesToggle() {
  const t = useT();
  const [state, , set] = useQuery(profileQueries.colleagues);
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
    <SwitchCard
      name="colleagues"
      switchTestId="hide-colleagues"
      on={on}
      saving={saving}
      label={t('profile.colleagues')}
      help={onRecord ? t('profile.colleaguesHelp') : `${t('profile.colleaguesHelp')} ${t('profile.colleaguesNoEmployer')}`}
      onChange={(next) => void change(next)}
    />
  );
}
