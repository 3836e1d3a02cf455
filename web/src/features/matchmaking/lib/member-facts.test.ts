import { describe, expect, it } from 'vitest';
import en from '@/lib/i18n/locales/en.json';
import zh from '@/lib/i18n/locales/zh-TW.json';
import ja from '@/lib/i18n/locales/ja.json';
import { translate, type TFunction } from '@/lib/i18n';
import { loadCore } from '@/lib/wasm';
import type { MemberView } from '@/features/matchmaking/api/matchmaking-api';
import { ageAndCity, answers, bandLabel, facts, memberIdFrom, occupationTypeLabel, reportProblem, tagGroups } from '@/features/matchmaking/lib/member-facts';

const tr =
  (messages: Record<string, string>): TFunction =>
  (key, params) =>
    translate(messages, key, params);

const member: MemberView = {
  memberId: 7,
  nickname: 'Kai',
  age: 34,
  city: 'TPE',
  distanceBand: 'FROM_5_TO_20_KM',
  occupationType: 'SOFTWARE_ENGINEERING',
  occupation: 'Firmware engineer',
  verifiedEmployer: true,
  height: 176,
  education: 'MASTER',
  marriageRecord: 0,
  hasChildren: 0,
  smoke: 0,
  drink: 1,
  tattoo: 'NONE',
  mbti: 'INTJ',
  personalityTagIds: [103],
  exerciseTagIds: [],
  hobbyTagIds: [301, 99999],
  marriageTypeTagIds: [],
  fertilityPlanTagIds: [502],
  petTagIds: [],
  aboutMe: 'Hello',
  datingQuestion: 'Mountains or sea?',
  dailyLife: '  ',
  photoNameList: [],
};

describe('what a member sees of another', () => {
  it('shows the age in each language with the catalogue city name', async () => {
    const cat = (await loadCore()).catalogues();
    expect(ageAndCity(tr(en), cat, member)).toBe('34 · Taipei City');
    expect(ageAndCity(tr(zh), cat, member)).toMatch(/^34 歲 · 臺北市$/);
    expect(ageAndCity(tr(ja), cat, member)).toMatch(/^34歳 · /);
  });

  it('an unknown city code or band is shown as its code rather than a wrong name', async () => {
    const cat = (await loadCore()).catalogues();
    expect(ageAndCity(tr(en), cat, { age: 30, city: 'ATLANTIS' })).toBe('30 · ATLANTIS');
    expect(bandLabel(tr(en), 'NEXT_DOOR')).toBe('NEXT_DOOR');
  });

  it('names each of the four distance bands and no finer distance', () => {
    for (const [band, text] of [
      ['UNDER_5_KM', 'Under 5 km'],
      ['FROM_5_TO_20_KM', '5–20 km'],
      ['FROM_20_TO_50_KM', '20–50 km'],
      ['OVER_50_KM', 'Over 50 km'],
    ]) {
      expect(bandLabel(tr(en), band!)).toBe(text);
      for (const messages of [zh, ja]) expect(bandLabel(tr(messages), band!)).not.toBe(band);
    }
  });

  it('groups tags as the register form asks them, leaving out ids it does not know and empty groups', async () => {
    const cat = (await loadCore()).catalogues();
    const groups = tagGroups(tr(en), cat, member);
    expect(groups.map((g) => [g.field, g.labels.length])).toEqual([
      ['personalityTagIds', 1],
      ['hobbyTagIds', 1],
    ]);
    const personality = cat.tags.personality.find((x) => x.id === 103)!;
    expect(groups[0]!.labels[0]).toBe((en as Record<string, string>)[personality.key]);
    expect(tr(en)(groups[1]!.labelKey)).toBe('Hobbies');
    expect(tagGroups(tr(en), null, member)).toEqual([]);
  });

  it('shows what the member chose, in the reader’s language, and no MBTI when none was shared', async () => {
    const cat = (await loadCore()).catalogues();
    const shown = Object.fromEntries(facts(tr(en), cat, member).map((f) => [f.key, `${f.label}: ${f.value}`]));
    expect(shown).toMatchObject({
      height: 'Height: 176 cm',
      education: "Education: Master's",
      marriageRecord: 'Marital history: Never married',
      hasChildren: 'Children: No children',
      smoke: 'Smoking: Never',
      drink: 'Drinking: Socially',
      tattoo: 'Tattoos: None',
      mbti: 'MBTI: INTJ',
    });
    expect(shown.plans).toMatch(/^Children plans: \S/);
    expect(facts(tr(ja), cat, member).find((f) => f.key === 'education')?.value).toBe((ja as Record<string, string>)['choice.education.MASTER']);
    expect(facts(tr(en), cat, { ...member, mbti: undefined }).map((f) => f.key)).not.toContain('mbti');
  });

  it('labels the occupation type and keeps only the Q&A answers given', () => {
    expect(occupationTypeLabel(tr(en), 'SOFTWARE_ENGINEERING')).toBe((en as Record<string, string>)['choice.occupationType.SOFTWARE_ENGINEERING']);
    expect(answers(member)).toEqual([{ key: 'field.datingQuestion', text: 'Mountains or sea?', code: 'DATING_QUESTION' }]);
  });

  it('reads the member id of /member?id=… only as a positive integer', () => {
    expect(memberIdFrom('?id=12')).toBe(12);
    for (const bad of ['', '?id=', '?id=0', '?id=-3', '?id=1.5', '?id=abc', '?id=012', '?id=99999999999999999']) expect(memberIdFrom(bad), bad).toBeNull();
  });

  it('a report needs a reason, and a text with OTHER', () => {
    expect(reportProblem([], 'x')).toBe('reasons');
    expect(reportProblem(['OTHER'], '  ')).toBe('text');
    expect(reportProblem(['OTHER'], 'he asked for money')).toBeNull();
    expect(reportProblem(['SPAM'], '')).toBeNull();
  });
});
