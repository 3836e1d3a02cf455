import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime } from '@/lib/dates';
import { formatDate as formatInLocale } from '@/lib/i18n';

describe('dates in the member language', () => {
  it('formats a calendar date per locale, the same day whatever the time zone', () => {
    expect(formatDate('1994-05-12', 'en')).toBe('May 12, 1994');
    expect(formatDate('1994-05-12', 'zh-TW')).toBe('1994年5月12日');
    expect(formatDate('1994-05-12', 'ja')).toBe('1994年5月12日');
    expect(formatDate('2000-01-01', 'en')).toBe('January 1, 2000');
  });

  it('leaves text that is not a date as it is', () => {
    expect(formatDate('', 'en')).toBe('');
    expect(formatDate('12/05/1994', 'en')).toBe('12/05/1994');
  });

  it('formats Unix seconds with the time, never as ISO', () => {
    const at = Date.UTC(2026, 10, 23, 12, 0) / 1000;
    expect(formatDateTime(at, 'en')).toMatch(/Nov 2[34], 2026/);
    expect(formatDateTime(at, 'en')).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(formatDateTime(at, 'ja')).toMatch(/^2026\/11\/2[34]/);
  });

  it('lib/i18n formats in the current locale unless told', () => {
    expect(formatInLocale('1994-05-12')).toBe('May 12, 1994');
    expect(formatInLocale('1994-05-12', 'zh-TW')).toBe('1994年5月12日');
  });
});
