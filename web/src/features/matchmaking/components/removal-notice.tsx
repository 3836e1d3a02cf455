import { useState } from 'react';
import { ShieldAlert } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { toast } from '@/lib/toast';
import { matchmakingApi, type RemovalNotice } from '@/features/matchmaking/api/matchmaking-api';

/** A notice that someone the member was matched with was removed for breaking the rules: who (the
 *  nickname they knew, while that member has an account), what to do (send nothing; the hotlines),
 *  how to report, and "Got it", which the server remembers. It says nothing of why nor of the
 *  decision. On /matches (each notice) and in the ended conversation of that match. */
export function RemovalNoticeCard({ notice, onDismissed, inChat = false }: { notice: RemovalNotice; onDismissed: (matchId: number) => void; inChat?: boolean }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const titleId = `removal-notice-${notice.matchId}`;
  const dismiss = async () => {
    setBusy(true);
    try {
      await matchmakingApi.dismissRemovalNotice(notice.matchId);
      onDismissed(notice.matchId);
    } catch {
      toast.error(t('match.removed.dismissFailed'));
      setBusy(false);
    }
  };
  return (
    <section className={`card removal-notice${inChat ? ' in-chat' : ''}`} aria-labelledby={titleId} data-testid="removal-notice" data-match-id={notice.matchId}>
      <h2 id={titleId} className="removal-notice-title">
        <ShieldAlert aria-hidden="true" />
        {t('match.removed.title')}
      </h2>
      <p data-testid="removal-notice-what">
        {notice.nickname != null ? t('match.removed.named', { name: notice.nickname }) : t('match.removed.unnamed')}
      </p>
      <p>{t('match.removed.advice')}</p>
      <p data-testid="removal-notice-help">{t('match.removed.help')}</p>
      <p data-testid="removal-notice-tell-us">{t('match.removed.tellUs')}</p>
      <p className="removal-notice-actions">
        <a
          href="/help?topic=safety"
          data-testid="removal-notice-report"
          onClick={(e) => {
            if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
            e.preventDefault();
            void navigate('/help?topic=safety');
          }}
        >
          {t('match.removed.report')}
        </a>
        <button type="button" className="btn btn-small" data-testid="removal-notice-dismiss" disabled={busy} onClick={() => void dismiss()}>
          {t('match.removed.dismiss')}
        </button>
      </p>
    </section>
  );
}
