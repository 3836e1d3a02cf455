import { describe, expect, it } from 'vitest';
import type { Entry } from '@/features/matchmaking/lib/chat-state';
import { chatRows, dayLabel, localDay } from '@/features/matchmaking/lib/chat-days';

const at = (y: number, m: number, d: number, h = 12) => new Date(y, m - 1, d, h).getTime() / 1000;
const entry = (id: number, sentAt: number): Entry => ({ clientMessageId: `c${id}`, messageId: id, text: `m${id}`, sentAt, mine: id % 2 === 0, delivery: 'sent' });

describe('a conversation grouped by day', () => {
  it('puts one separator before the first message of each local day', () => {
    const rows = chatRows([entry(1, at(2026, 11, 20, 9)), entry(2, at(2026, 11, 20, 23)), entry(3, at(2026, 11, 21, 0)), entry(4, at(2026, 11, 23, 8))], (s) => localDay(s));
    expect(rows.map((r) => (r.kind === 'day' ? r.label : r.entry.messageId))).toEqual(['2026-11-20', 1, 2, '2026-11-21', 3, '2026-11-23', 4]);
  });

  it('has no separator without messages', () => {
    expect(chatRows([], () => 'x')).toEqual([]);
  });

  it('names today and yesterday in words and other days by their date', () => {
    const now = new Date(2026, 10, 24, 10);
    const words = { today: 'Today', yesterday: 'Yesterday' };
    expect(dayLabel(at(2026, 11, 24, 1), now, 'en', words)).toBe('Today');
    expect(dayLabel(at(2026, 11, 23, 23), now, 'en', words)).toBe('Yesterday');
    expect(dayLabel(at(2026, 11, 20), now, 'en', words)).toBe('Fri, November 20');
    expect(dayLabel(at(2025, 3, 2), now, 'en', words)).toBe('Mar 2, 2025');
    expect(dayLabel(at(2026, 11, 20), now, 'ja', words)).toBe('11月20日(金)');
  });
});
