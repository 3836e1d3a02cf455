import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { Dialog } from '@/features/matchmaking/components/dialog';

/** "It's a match!" after a like that was answered, with the chat one tap away. */
export function ItsAMatch({ match, onClose }: { match: { name: string; matchId: number | null } | null; onClose: () => void }) {
  const t = useT();
  const go = (path: string) => {
    onClose();
    void navigate(path);
  };
  return (
    <Dialog open={match !== null} title={t('match.itsAMatch')} onClose={onClose} testId="its-a-match">
      <p>{t('match.itsAMatchText', { name: match?.name ?? '' })}</p>
      <div className="mm-dialog-actions">
        <button type="button" className="btn" data-testid="see-matches" onClick={() => go('/matches')}>{t('match.seeMatches')}</button>
        {match?.matchId != null ? (
          <button type="button" className="btn btn-primary" data-testid="say-hello" onClick={() => go(`/chat?match=${match.matchId}`)}>
            {t('match.sayHello')}
          </button>
        ) : null}
      </div>
    </Dialog>
  );
}
