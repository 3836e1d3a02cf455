import { beforeAll, describe, expect, it } from 'vitest';
import { lineShare } from 'virtual:core-rules';
import { completeLocale, setLocale, t, type Locale } from '@/lib/i18n';
import { setLogShipper } from '@/lib/logger';
import { refusal } from '@/lib/line-share';
import { dateMessage, localInputValue, planProblems, safetyLink } from '@/features/matchmaking/lib/share-date';

const { datePlace } = lineShare;
const NOW = new Date(2026, 10, 26, 18, 0);
const at = (ms: number) => localInputValue(new Date(NOW.getTime() + ms));
const HOUR = 3_600_000;

beforeAll(() => setLogShipper(() => {}));

describe('a date plan’s limits (kizuna-core: lineShare)', () => {
  it('come from the core', () => {
    expect(datePlace).toEqual({ min: 1, max: 100 });
    expect(lineShare.datePastSecs).toBe(12 * 60 * 60);
    expect(lineShare.dateAheadSecs).toBe(90 * 24 * 60 * 60);
  });

  it('a place is required, at most datePlace.max characters (as the core counts them), one line', () => {
    const when = at(2 * HOUR);
    expect(planProblems({ place: '   ', when }, NOW)).toEqual({ place: 'placeRequired' });
    expect(planProblems({ place: 'x'.repeat(datePlace.max), when }, NOW)).toEqual({});
    expect(planProblems({ place: 'x'.repeat(datePlace.max + 1), when }, NOW)).toEqual({ place: 'placeTooLong' });
    // 100 emoji are 200 UTF-16 code units and still 100 characters.
    expect(planProblems({ place: '🍣'.repeat(datePlace.max), when }, NOW)).toEqual({});
    expect(planProblems({ place: 'Cafe\u0007', when }, NOW)).toEqual({ place: 'placeInvalid' });
  });

  it('a time is required, from 12 hours ago (the member is there) to 90 days ahead', () => {
    const place = 'Cafe Lumi';
    expect(planProblems({ place, when: '' }, NOW)).toEqual({ when: 'whenRequired' });
    expect(planProblems({ place, when: 'tomorrow' }, NOW)).toEqual({ when: 'whenRange' });
    expect(planProblems({ place, when: at(0) }, NOW)).toEqual({});
    expect(planProblems({ place, when: at(-12 * HOUR) }, NOW)).toEqual({});
    expect(planProblems({ place, when: at(-12 * HOUR - 60_000) }, NOW)).toEqual({ when: 'whenRange' });
    expect(planProblems({ place, when: at(90 * 24 * HOUR) }, NOW)).toEqual({});
    expect(planProblems({ place, when: at(90 * 24 * HOUR + 60_000) }, NOW)).toEqual({ when: 'whenRange' });
  });
});

describe('the bubble a friend receives', () => {
  const liffId = '1650000000-abcdefgh';
  const time = new Date(2026, 10, 27, 19, 30);

  it.each<[Locale, string]>([
    ['en', 'My date plan'],
    ['zh-TW', '我的約會計畫'],
    ['ja', 'デートの予定'],
  ])('in %s: the match’s nickname, where and when, the safety tips as an absolute LIFF link, and no photo', async (locale, title) => {
    await setLocale(locale);
    await completeLocale();
    const message = dateMessage({ nickname: 'Kai', place: '  Cafe Lumi, Da’an  ', time, locale, liffId, t });
    const json = JSON.stringify(message);
    expect(refusal(message)).toBeNull();
    expect(message.type).toBe('flex');
    expect(message.contents.type).toBe('bubble');
    expect(json).toContain(title);
    expect(json).toContain('"Kai"');
    expect(json).toContain('"Cafe Lumi, Da’an"');
    const when = new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short' }).format(time);
    expect(json).toContain(JSON.stringify(when));
    expect(message.altText).toContain('Kai');
    expect(message.altText).toContain('Cafe Lumi');
    // One link, the safety tips; no image of anyone and no other address.
    expect(json.match(/https?:\/\/[^"]+/g)).toEqual([`https://liff.line.me/${liffId}/help?topic=safety`]);
    expect(safetyLink(liffId)).toBe(`https://liff.line.me/${liffId}/help?topic=safety`);
    expect(json).not.toMatch(/"(image|hero|url)"|\.(jpe?g|png|webp)|_ipx|\/api\//);
  });

  it('names the match as "someone from Kizuna" when the nickname is not known yet', async () => {
    await setLocale('en');
    await completeLocale();
    const json = JSON.stringify(dateMessage({ nickname: ' ', place: 'Cafe', time, locale: 'en', liffId, t }));
    expect(json).toContain('someone from Kizuna');
  });
});
