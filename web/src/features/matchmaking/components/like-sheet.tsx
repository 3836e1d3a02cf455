import { useState } from 'react';
import { likeComment } from 'virtual:core-rules';
import { Heart } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { Image } from '@/components/image';
import { Dialog, type FocusTarget } from '@/features/matchmaking/components/dialog';
import { answerKey, type AnswerCode } from '@/features/matchmaking/lib/member-facts';

/** The part of a profile a like is about: one photo or one Q&A answer. */
export type LikedPart = { photoName: string; index: number } | { answer: AnswerCode; text: string };

/** The most characters a like's comment has: the core's `rules::LIKE_COMMENT`, asked of the wasm
 *  package when the app is built (the sheet does not load the core). */
export const LIKE_COMMENT_MAX = likeComment.max;

/** Like one photo or answer, with an optional comment the other member sees with the like. */
export function LikeSheet({ part, name, busy, onSend, onClose, returnFocus }: { part: LikedPart | null; name: string; busy: boolean; onSend: (text: string) => void; onClose: () => void; returnFocus?: FocusTarget }) {
  const t = useT();
  const [text, setText] = useState('');
  const length = [...text.trim()].length;
  return (
    <Dialog open={part !== null} title={t('match.likeSheet.title', { name })} onClose={() => { setText(''); onClose(); }} testId="like-sheet" returnFocus={returnFocus}>
      {part !== null ? (
        <form
          className="like-sheet"
          onSubmit={(e) => {
            e.preventDefault();
            if (length <= LIKE_COMMENT_MAX) onSend(text.trim());
          }}
        >
          <div className="like-sheet-preview">
            {'photoName' in part ? (
              <Image src={part.photoName} alt={t('match.photoAlt', { n: part.index + 1, name })} width={72} height={96} />
            ) : (
              <blockquote>
                <small className="muted">{t(answerKey(part.answer))}</small>
                <br />
                {part.text}
              </blockquote>
            )}
          </div>
          <label htmlFor="like-comment">{t('match.likeSheet.comment')}</label>
          <textarea id="like-comment" data-testid="like-comment" rows={3} value={text} maxLength={LIKE_COMMENT_MAX + 20} onChange={(e) => setText(e.target.value)} aria-describedby="like-comment-count" aria-invalid={length > LIKE_COMMENT_MAX || undefined} />
          <p id="like-comment-count" className="counter" aria-live="polite">
            {t('match.likeSheet.count', { n: length, max: LIKE_COMMENT_MAX })}
          </p>
          <div className="mm-dialog-actions">
            <button type="button" className="btn" onClick={onClose}>{t('match.cancel')}</button>
            <button type="submit" className="btn btn-primary" data-testid="like-send" disabled={busy || length > LIKE_COMMENT_MAX}>
              <Heart aria-hidden="true" />
              {t('match.likeSheet.send')}
            </button>
          </div>
        </form>
      ) : null}
    </Dialog>
  );
}
