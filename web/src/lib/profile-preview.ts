import type { TFunction } from '@/lib/i18n';
import type { Catalogues } from '@/lib/wasm';

/** A profile as another member sees it, from what the caller has: the register form's draft, or
 *  /profile's approved profile (`components/profile-preview.tsx` draws it). Photos are file names
 *  (or a draft's local data URLs); labels are in the reader's language already. */
export interface PreviewProfile {
  nickname: string;
  /** Completed years today, or null when the birthday is not there yet. */
  age: number | null;
  city: string;
  /** "Software engineering · Product designer". */
  work: string;
  aboutMe: string;
  answers: { question: string; text: string }[];
  photos: string[];
  tagGroups: { title: string; labels: string[] }[];
}

/** What a preview reads of a draft or a stored profile (alike but for the tag ids, which the
 *  draft keeps as the form's strings). */
export interface PreviewSource {
  nickname?: string | null;
  birthday?: string | null;
  city?: string | null;
  occupationType?: string | null;
  occupation?: string | null;
  aboutMe?: string | null;
  datingQuestion?: string | null;
  dailyLife?: string | null;
  surprisePoint?: string | null;
  photoNameList?: readonly string[] | null;
  personalityTagIds?: readonly (number | string)[] | null;
  exerciseTagIds?: readonly (number | string)[] | null;
  hobbyTagIds?: readonly (number | string)[] | null;
  marriageTypeTagIds?: readonly (number | string)[] | null;
  petTagIds?: readonly (number | string)[] | null;
}

/** Completed years on `today` (both `YYYY-MM-DD`), for a preview only: what others are shown is
 *  the server's, from kizuna-core. */
export function yearsOn(birthday: string, today: string): number | null {
  const b = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthday);
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(today);
  if (!b || !d) return null;
  const years = Number(d[1]) - Number(b[1]) - (`${d[2]}${d[3]}` < `${b[2]}${b[3]}` ? 1 : 0);
  return years >= 0 ? years : null;
}

/** The tag groups in the order the register form asks them (the plans for children are a fact). */
const TAG_GROUPS = [
  ['personalityTagIds', 'personality'],
  ['exerciseTagIds', 'exercise'],
  ['hobbyTagIds', 'hobby'],
  ['marriageTypeTagIds', 'marriageType'],
  ['petTagIds', 'pet'],
] as const;

const label = (t: TFunction, key: string | undefined, code: string) => {
  if (!key) return code;
  const text = t(key);
  return text === key ? code : text;
};

/** The preview of `p` as others would see it on `today`; with no catalogues yet, codes stay out. */
export function previewOf(p: PreviewSource, cat: Pick<Catalogues, 'tags' | 'cities'> | null, t: TFunction, today: string): PreviewProfile {
  const answers: { question: string; text: string }[] = [];
  for (const [key, text] of [
    ['field.datingQuestion', p.datingQuestion],
    ['field.dailyLife', p.dailyLife],
    ['field.surprisePoint', p.surprisePoint],
  ] as const) {
    if (text?.trim()) answers.push({ question: t(key), text });
  }
  const city = p.city ? label(t, cat?.cities.find((c) => c.code === p.city)?.key, cat ? p.city : '') : '';
  const type = p.occupationType ? label(t, `choice.occupationType.${p.occupationType}`, '') : '';
  return {
    nickname: p.nickname ?? '',
    age: p.birthday ? yearsOn(p.birthday, today) : null,
    city,
    work: [type, p.occupation ?? ''].filter((s) => s.trim()).join(' · '),
    aboutMe: p.aboutMe ?? '',
    answers,
    photos: (p.photoNameList ?? []).filter(Boolean),
    tagGroups: cat
      ? TAG_GROUPS.map(([field, group]) => ({
          title: t(`field.${field}`),
          labels: (p[field] ?? []).flatMap((id) => {
            const tag = cat.tags[group].find((x) => String(x.id) === String(id));
            return tag ? [label(t, tag.key, String(id))] : [];
          }),
        })).filter((g) => g.labels.length > 0)
      : [],
  };
}
