import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { useQuery } from '@/lib/query';
import { notificationsApi, type PushKind } from '@/features/profile/api/notifications-api';
import { changeOptimistically } from '@/features/profile/lib/optimistic';
import { SwitchCard } from '@/features/profile/components/switch-card';
import { profileQueries } from '@/features/profile/api/queries';

/** Each kind's switch: its test id and its label and help keys. */
const SWITCHES: Record<PushKind, { testId: string; label: string; help: string }> = {
  introductions: { testId: 'morning-push', label: 'profile.morningPush', help: 'profile.morningPushHelp' },
  matches: { testId: 'match-push', label: 'profile.matchPush', help: 'profile.matchPushHelp' },
  messages: { testId: 'message-push', label: 'profile.messagePush', help: 'profile.messagePushHelp' },
};

/** The morning LINE push "N new introductions today" on or off (APPROVED members; the daily job
 *  reads the setting). */
export function MorningPushToggle() {
  return <PushToggle kind="introductions" />;
}

/** One LINE push kind on or off. The switch moves at once and moves back, with a toast, if the
 *  save fails; it waits for one save before the next, so answers cannot arrive out of order. The
 *  three switches share one GET /user/notifications. */
export function PushToggle({ kind }: { kind: PushKind }) {
  const t = useT();
  const labels = SWITCHES[kind];
  const [settings, , setSettings] = useQuery(profileQueries.notifications);
  const [saving, setSaving] = useState(false);
  const on = settings.kind === 'ok' ? settings.value[kind] : null;
  const unavailable = settings.kind !== 'ok' && settings.kind !== 'loading';

  const change = async (next: boolean) => {
    if (settings.kind !== 'ok' || saving) return;
    const before = settings.value;
    setSaving(true);
    const saved = await changeOptimistically(before, { ...before, [kind]: next }, setSettings, () =>
      notificationsApi.put({ [kind]: next }),
    );
    setSaving(false);
    if (!saved) toast.error(t('profile.morningPushFailed'));
  };

  return (
    <SwitchCard
      name={labels.testId}
      on={on}
      saving={saving}
      label={t(labels.label)}
      help={unavailable ? t('profile.morningPushUnavailable') : t(labels.help)}
      onChange={(next) => void change(next)}
    />
  );
}
