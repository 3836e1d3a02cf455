import type { ReactNode } from 'react';
import { Heart } from 'lucide-react';
import { useT } from '@/lib/i18n';
import type { Catalogues } from '@/lib/wasm';
import { Image } from '@/components/image';
import type { MemberView } from '@/features/matchmaking/api/matchmaking-api';
import { Verified } from '@/features/matchmaking/components/verified';
import type { LikedPart } from '@/features/matchmaking/components/like-sheet';
import { ageAndCity, answers, bandLabel, facts, occupationTypeLabel, tagGroups } from '@/features/matchmaking/lib/member-facts';

/** The width a profile photo is drawn at on the widest layout (the app's column); `sizes` lets a
 *  phone take the rendition its screen needs. */
const PHOTO_WIDTH = 560;
const PHOTO_HEIGHT = 700;
const PHOTO_SIZES = '(max-width: 560px) 100vw, 560px';

/** A member's profile as dating apps lay it out: large photos, full width, interleaved with the
 *  about-me and the Q&A answers; the basics and the verified badge after the first photo. Tapping
 *  a photo opens the viewer (`onOpenPhoto`); the heart on a photo or an answer likes that part
 *  (`onLikePart`, absent once liked or matched). */
export function ProfileBody({ member, cat, onOpenPhoto, onLikePart, top }: {
  member: MemberView;
  cat: Catalogues | null;
  onOpenPhoto: (index: number) => void;
  onLikePart?: (part: LikedPart) => void;
  /** Shown under the first photo (the like the viewer received). */
  top?: ReactNode;
}) {
  const t = useT();
  const photos = member.photoNameList;
  const qa = answers(member);
  const tags = tagGroups(t, cat, member);

  const photo = (index: number) => {
    const name = photos[index];
    if (name === undefined) return null;
    const alt = t('match.photoAlt', { n: index + 1, name: member.nickname });
    return (
      <figure className="profile-photo" key={`photo-${name}`} data-testid="member-photo">
        <button type="button" className="photo-open" onClick={() => onOpenPhoto(index)} aria-label={t('match.openPhoto', { n: index + 1, name: member.nickname })}>
          <Image src={name} alt={alt} width={PHOTO_WIDTH} height={PHOTO_HEIGHT} sizes={PHOTO_SIZES} loading={index === 0 ? 'eager' : 'lazy'} />
        </button>
        {index === 0 ? (
          <div className="intro-shade">
            <h2 data-testid="member-nickname">{member.nickname}</h2>
            <p data-testid="member-age-city">{ageAndCity(t, cat, member)}</p>
          </div>
        ) : null}
        {onLikePart ? (
          <button type="button" className="like-part" data-testid="like-photo" aria-label={t('match.likePhoto', { n: index + 1 })} onClick={() => onLikePart({ photoName: name, index })}>
            <Heart aria-hidden="true" />
          </button>
        ) : null}
      </figure>
    );
  };

  // Photo, basics, about me, then a photo before each answer, the rest of the photos last.
  const rest: ReactNode[] = [];
  const extra = Math.max(photos.length - 1, qa.length);
  for (let i = 0; i < extra; i++) {
    rest.push(photo(i + 1));
    const answer = qa[i];
    if (answer) {
      rest.push(
        <section className="profile-card" key={`qa-${answer.code}`} data-testid="member-answer" data-answer={answer.code}>
          <h2>{t(answer.key)}</h2>
          <p className="answer">{answer.text}</p>
          {onLikePart ? (
            <button type="button" className="like-part" data-testid="like-answer" aria-label={t('match.likeAnswer', { question: t(answer.key) })} onClick={() => onLikePart({ answer: answer.code, text: answer.text })}>
              <Heart aria-hidden="true" />
            </button>
          ) : null}
        </section>,
      );
    }
  }

  return (
    <>
      {photos.length ? (
        photo(0)
      ) : (
        <div className="profile-card">
          <h2 data-testid="member-nickname">{member.nickname}</h2>
          <p data-testid="member-age-city">{ageAndCity(t, cat, member)}</p>
        </div>
      )}
      {top}
      <section className="profile-card" data-testid="member-basics">
        <Verified name={member.nickname} explained />
        <p className="muted" data-testid="member-band">
          {bandLabel(t, member.distanceBand)} · {occupationTypeLabel(t, member.occupationType)} · {member.occupation}
        </p>
        {/* With the catalogues' labels only: never a raw code such as MASTER while they load. */}
        {cat ? (
          <dl className="facts" data-testid="member-facts">
            {facts(t, cat, member).map((f) => (
              <div key={f.key} data-fact={f.key}>
                <dt>{f.label}</dt>
                <dd>{f.value}</dd>
              </div>
            ))}
          </dl>
        ) : null}
      </section>
      <section className="profile-card">
        <h2>{t('field.aboutMe')}</h2>
        <p className="about" data-testid="member-about">{member.aboutMe}</p>
      </section>
      {rest}
      {tags.length ? (
        <section className="profile-card tag-groups" aria-labelledby="member-tags-title">
          <h2 id="member-tags-title">{t('match.tags')}</h2>
          <div data-testid="member-tags">
            {tags.map((g) => (
              <div key={g.field} className="tag-group" data-group={g.field}>
                <h3>{t(g.labelKey)}</h3>
                <ul className="chips">
                  {g.labels.map((label) => (
                    <li key={label} className="chip">{label}</li>
                  ))}
                </ul>
              </div>
            ))}
          </div>
        </section>
      ) : null}
    </>
  );
}
