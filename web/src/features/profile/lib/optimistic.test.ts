import { describe, expect, it } from 'vitest';
import { changeOptimistically } from '@/features/profile/lib/optimistic';

describe('changeOptimistically', () => {
  it('shows the new value before the save answers, then what the server stored', async () => {
    const shown: boolean[] = [];
    let answer!: (v: boolean) => void;
    const saved = changeOptimistically(true, false, (v) => shown.push(v), () => new Promise<boolean>((r) => (answer = r)));
    expect(shown).toEqual([false]);
    answer(false);
    await expect(saved).resolves.toBe(true);
    expect(shown).toEqual([false, false]);
  });

  it('rolls back to the previous value when the save fails', async () => {
    const shown: boolean[] = [];
    const saved = changeOptimistically(true, false, (v) => shown.push(v), () => Promise.reject(new Error('offline')));
    await expect(saved).resolves.toBe(false);
    expect(shown).toEqual([false, true]);
  });

  it('shows the server’s answer when it differs from what was asked', async () => {
    const shown: string[] = [];
    await changeOptimistically('a', 'b', (v) => shown.push(v), () => Promise.resolve('c'));
    expect(shown).toEqual(['b', 'c']);
  });
});
