import { describe, expect, it } from 'vitest';
import { formatNextIntroductions, nextIntroductionsAt } from '@/features/matchmaking/lib/next-introductions';

describe('the next introductions', () => {
  it('come at the Taipei time today when it is still ahead, else tomorrow', () => {
    // 2026-11-25 05:00 in Taipei is 2026-11-24 21:00 UTC.
    const fiveAmTaipei = Date.UTC(2026, 10, 24, 21, 0);
    expect(nextIntroductionsAt('06:00', fiveAmTaipei)).toBe(Date.UTC(2026, 10, 24, 22, 0));
    // 07:00 in Taipei: tomorrow's 06:00.
    expect(nextIntroductionsAt('06:00', fiveAmTaipei + 2 * 3_600_000)).toBe(Date.UTC(2026, 10, 25, 22, 0));
    // Exactly at the time: that run is under way, the next one is tomorrow's.
    expect(nextIntroductionsAt('06:00', Date.UTC(2026, 10, 24, 22, 0))).toBe(Date.UTC(2026, 10, 25, 22, 0));
  });

  it('are unknown when the server runs no schedule or names no HH:MM', () => {
    for (const at of [null, undefined, '', 'off', '6:00', '24:00', '06:60']) expect(nextIntroductionsAt(at, 0)).toBeNull();
  });

  it('show in the member’s own time zone and language', () => {
    const at = Date.UTC(2026, 10, 24, 22, 0); // Wed 25 Nov 06:00 in Taipei
    expect(formatNextIntroductions(at, 'en', 'Asia/Taipei')).toMatch(/^Wed 6:00\sAM$/);
    expect(formatNextIntroductions(at, 'en', 'Asia/Tokyo')).toMatch(/^Wed 7:00\sAM$/);
    expect(formatNextIntroductions(at, 'en', 'Europe/Paris')).toMatch(/^Tue 11:00\sPM$/);
    expect(formatNextIntroductions(at, 'ja', 'Asia/Tokyo')).toMatch(/^(?=.*水)(?=.*7:00)/);
  });
});
