import { Heart } from 'lucide-react';
import { useT } from '@/lib/i18n';
import type { LikeView } from '@/features/matchmaking/api/matchmaking-api';
import { answerKey } from '@/features/matchmaking/lib/member-facts';

/** "Kai liked your photo: “…”": a like the viewer received, with what its comment was about. */
export function TheirLike({ like, name }: { like: LikeView; name: string }) {
  const t = useT();
  const c = like.comment;
  const what = c == null ? t('match.likedYou', { name }) : c.photoName != null ? t('match.likedYourPhoto', { name }) : t('match.likedYourAnswer', { name, question: t(answerKey(c.answer ?? '')) });
  return (
    <p className="their-like" data-testid="their-like">
      <Heart aria-hidden="true" />
      <span>
        {what}
        {c != null ? (
          <>
            {' '}
            <q data-testid="their-like-comment">{c.text}</q>
          </>
        ) : null}
      </span>
    </p>
  );
}
