import { useT } from '@/lib/i18n';
import type { Catalogues } from '@/lib/wasm';
import { Image } from '@/components/image';
import type { MemberView } from '@/features/matchmaking/api/matchmaking-api';
import { ageAndCity, bandLabel, occupationTypeLabel } from '@/features/matchmaking/lib/member-facts';

/** The head of a member card: first photo, nickname, age and city, distance band, work, badge. */
export function MemberSummary({ member, cat, photoWidth = 96 }: { member: MemberView; cat: Catalogues | null; photoWidth?: number }) {
  const t = useT();
  const photo = member.photoNameList[0];
  const height = Math.round(photoWidth * 4 / 3);
  return (
    <div className="mm-summary">
      {photo ? (
        <Image src={photo} alt={t('match.photoAlt', { n: 1, name: member.nickname })} width={photoWidth} height={height} className="mm-photo" loading="eager" />
      ) : (
        <div className="mm-photo mm-no-photo" style={{ width: photoWidth, height }}>{t('match.noPhoto')}</div>
      )}
      <div className="mm-summary-text">
        <h2 className="mm-name" data-testid="member-nickname">{member.nickname}</h2>
        <p data-testid="member-age-city">{ageAndCity(t, cat, member)}</p>
        <p className="muted" data-testid="member-band">{bandLabel(t, member.distanceBand)}</p>
        <p>
          {occupationTypeLabel(t, member.occupationType)} · {member.occupation}
        </p>
        {member.verifiedEmployer ? (
          <span className="badge badge-approved" data-testid="verified-employer">✓ {t('match.verified')}</span>
        ) : null}
      </div>
    </div>
  );
}
