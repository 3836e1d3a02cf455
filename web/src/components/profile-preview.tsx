import { BadgeCheck } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { Image } from '@/components/image';
import type { PreviewProfile } from '@/lib/profile-preview';
import '@/components/profile-preview.css';

/** "How others see you": the first photo with the name, age and city on it, the verified mark,
 *  the work, then the about-me and each answer with a photo before it, as the profile page lays
 *  them out, and the tags grouped as the form asks them. Nothing private is in it: no name,
 *  birthday, employer, income or address. */
export function ProfilePreview({ profile, testId = 'profile-preview' }: { profile: PreviewProfile; testId?: string }) {
  const t = useT();
  const [first, ...rest] = profile.photos;
  const headline = [profile.age !== null ? t('match.age', { age: profile.age }) : null, profile.city].filter(Boolean).join(' · ');
  const photo = (src: string, i: number) => (
    <Image key={`${src}-${i}`} className="preview-photo" src={src} alt={t('preview.photoAlt', { n: i + 1 })} width={360} height={450} sizes="(max-width: 400px) 90vw, 360px" />
  );
  return (
    <div className="profile-preview" data-testid={testId}>
      <div className="preview-top">
        {first ? photo(first, 0) : <div className="preview-photo preview-no-photo">{t('match.noPhoto')}</div>}
        <div className="preview-shade">
          <p className="preview-name">{profile.nickname}</p>
          {headline ? <p>{headline}</p> : null}
        </div>
      </div>
      <div className="preview-card">
        <p className="preview-verified">
          <BadgeCheck aria-hidden="true" />
          {t('preview.verified')}
        </p>
        {profile.work ? <p className="muted">{profile.work}</p> : null}
      </div>
      {profile.aboutMe ? (
        <div className="preview-card">
          <p className="preview-label">{t('field.aboutMe')}</p>
          <p className="preview-text">{profile.aboutMe}</p>
        </div>
      ) : null}
      {profile.answers.map((a, i) => (
        <div key={a.question}>
          {rest[i] ? photo(rest[i], i + 1) : null}
          <div className="preview-card">
            <p className="preview-label">{a.question}</p>
            <p className="preview-answer">{a.text}</p>
          </div>
        </div>
      ))}
      {rest.slice(profile.answers.length).map((src, i) => photo(src, profile.answers.length + i + 1))}
      {profile.tagGroups.length ? (
        <div className="preview-card">
          {profile.tagGroups.map((g) => (
            <div key={g.title} className="preview-tags">
              <p className="preview-label">{g.title}</p>
              <ul className="chips">
                {g.labels.map((l) => (
                  <li key={l} className="chip">{l}</li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
