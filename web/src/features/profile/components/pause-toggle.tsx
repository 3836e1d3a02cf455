import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { invalidate, queryKeys, useQuery } from '@/lib/query';
import { pauseApi } from '@/features/profile/api/notifications-api';
import { changeOptimistically } from '@/features/profile/lib/optimistic';
import { SwitchCard } from '@/features/profile/components/switch-card';
import { profileQueries } from '@/features/profile/api/queries';

/** "Take a break": out of everyone's introductions at once and no new ones, matches and chats go
 *  on (APPROVED members). Moves at once and back, with a toast, if the save fails. */
export function PauseToggle() {
  const t = useT();
  const [state, , set] = useQuery(profileQueries.pause);
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

  return <SwitchCard name="pause" on={on} saving={saving} label={t('profile.pause')} help={t('profile.pauseHelp')} onChange={(next) => void change(next)} />;
}
