import { Heart, MessageCircle, X } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';

/** Where the viewer stands with a member, and the next action one tap away: Pass and Like side by
 *  side; once liked, a filled "You liked …" state (never a pale, disabled-looking pill); once
 *  matched, the way into the chat. */
export function Reactions({ name, reaction, matchId, busy, onLike, onPass }: {
  name: string;
  reaction: string | null | undefined;
  matchId?: number | null;
  busy: boolean;
  onLike: () => void;
  onPass: () => void;
}) {
  const t = useT();
  if (matchId != null) {
    return (
      <div className="reactions">
        <a className="btn btn-primary chat-cta" href={`/chat?match=${matchId}`} data-testid="open-chat" onClick={(e) => { e.preventDefault(); void navigate(`/chat?match=${matchId}`); }}>
          <MessageCircle aria-hidden="true" />
          {t('match.chat.title', { name })}
        </a>
      </div>
    );
  }
  if (reaction === 'LIKE') {
    return (
      <div className="reactions">
        {/* Focusable by script: the focus comes here from the Like button it replaced. */}
        <p className="liked-state" data-testid="liked" role="status" tabIndex={-1}>
          <Heart aria-hidden="true" />
          {t('match.youLiked', { name })}
        </p>
      </div>
    );
  }
  return (
    <div className="reactions">
      <button type="button" className="react-btn" data-testid="pass" disabled={busy} onClick={onPass} aria-label={t('match.passName', { name })}>
        <X aria-hidden="true" />
        {t('match.pass')}
      </button>
      <button type="button" className="react-btn like" data-testid="like" disabled={busy} onClick={onLike} aria-label={t('match.likeName', { name })}>
        <Heart aria-hidden="true" />
        {t('match.like')}
      </button>
    </div>
  );
}
