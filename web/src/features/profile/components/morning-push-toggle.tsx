import { useEffect, useState } from 'react';
import { useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { notificationsApi, type PushKind } from '@/features/profile/api/notifications-api';
import { changeOptimistically } from '@/features/profile/lib/optimistic';

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
 *  save fails; it waits for one save before the next, so answers cannot arrive out of order. */
export function PushToggle({ kind }: { kind: PushKind }) {
  const t = useT();
  const labels = SWITCHES[kind];
  const [on, setOn] = useState<boolean | null>(null);
  const [saving, setSaving] = useState(false);
  const [unavailable, setUnavailable] = useState(false);

  useEffect(() => {
    let alive = true;
    notificationsApi
      .get()
      .then((s) => alive && setOn(s[kind]))
      .catch((err: unknown) => {
        logger.warn(`notification settings: ${describeError(err)}`);
        if (alive) setUnavailable(true);
      });
    return () => {
      alive = false;
    };
  }, [kind]);

  const change = async (next: boolean) => {
    if (on === null || saving) return;
    setSaving(true);
    const saved = await changeOptimistically(on, next, setOn, (v) => notificationsApi.put({ [kind]: v }).then((s) => s[kind]));
    setSaving(false);
    if (!saved) toast.error(t('profile.morningPushFailed'));
  };

  return (
    <div className="card" data-testid={`${labels.testId}-card`}>
      <label className="check morning-push">
        <input
          type="checkbox"
          role="switch"
          checked={on ?? false}
          disabled={on === null}
          aria-busy={saving}
          aria-describedby={`${labels.testId}-help`}
          onChange={(e) => void change(e.target.checked)}
          data-testid={labels.testId}
          data-state={on === null ? 'loading' : on ? 'on' : 'off'}
        />
        <span>{t(labels.label)}</span>
      </label>
      <p id={`${labels.testId}-help`} className="muted">{unavailable ? t('profile.morningPushUnavailable') : t(labels.help)}</p>
    </div>
  );
}
