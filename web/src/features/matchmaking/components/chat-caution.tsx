import { ShieldAlert } from 'lucide-react';
import { useT } from '@/lib/i18n';

const REASON: Record<string, string> = {
  OFF_PLATFORM: 'match.caution.offPlatform',
  MONEY: 'match.caution.money',
};

/** The caution under a received message the server's screening flagged (`caution.kinds`): why,
 *  what to do (the hotlines of the member's language), and Report (the scam reason chosen) or
 *  Block, one tap each. Its texts travel with the send-check sheet's (the chat's chunk). */
export function ChatCaution({ kinds, onReport, onBlock, ended }: { kinds: readonly string[]; onReport: () => void; onBlock: () => void; ended: boolean }) {
  const t = useT();
  const known = kinds.filter((k) => REASON[k]);
  if (known.length === 0) return null;
  return (
    <div className="chat-caution" role="note" data-testid="chat-caution" data-kinds={known.join(',')}>
      <p className="chat-caution-title">
        <ShieldAlert aria-hidden="true" />
        <strong>{t('match.caution.title')}</strong>
      </p>
      {known.map((kind) => (
        <p key={kind} data-testid={`chat-caution-${kind}`}>{t(REASON[kind])}</p>
      ))}
      <p data-testid="chat-caution-help">{t('match.caution.help')}</p>
      {!ended ? (
        <p className="chat-caution-actions">
          <button type="button" className="btn btn-small" data-testid="chat-caution-report" onClick={onReport}>
            {t('match.caution.report')}
          </button>{' '}
          <button type="button" className="btn btn-small" data-testid="chat-caution-block" onClick={onBlock}>
            {t('match.caution.block')}
          </button>
        </p>
      ) : null}
    </div>
  );
}
