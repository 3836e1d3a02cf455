import { useId, useState } from 'react';
import { UserPlus } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { getConfig } from '@/lib/config';
import { OUTCOME_KEYS, shareWithOneFriend, type ShareOutcome } from '@/lib/line-share';
import { inviteMessage } from '@/features/profile/lib/invite-message';

/** /profile's "Invite a friend to Kizuna": one button that opens LINE's friend list and sends the
 *  friend picked an invitation with the official account's add-friend link; what came of it is
 *  said under the button. Nothing reaches Kizuna's server. */
export function InviteCard() {
  const t = useT();
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<ShareOutcome | null>(null);
  const botId = getConfig()?.lineBotId ?? '';

  const invite = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      setOutcome(await shareWithOneFriend(inviteMessage(botId, t)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card invite-card" aria-labelledby={`${id}-title`} data-testid="invite-card">
      <h2 id={`${id}-title`}>{t('profile.invite.title')}</h2>
      <p className="muted">{t('profile.invite.text')}</p>
      <button type="button" className="btn" data-testid="invite-send" disabled={busy || !botId} onClick={() => void invite()}>
        <UserPlus aria-hidden="true" />
        {t('profile.invite.send')}
      </button>
      <p className={`share-outcome${outcome ? ` ${outcome}` : ''}`} role="status" data-testid="invite-outcome" data-outcome={outcome ?? ''}>
        {outcome ? t(OUTCOME_KEYS[outcome]) : ''}
      </p>
    </section>
  );
}
