import { afterEach, describe, expect, it } from 'vitest';
import { PASS_UNDO_MS, forgetPass, pendingPass, rememberPass } from '@/features/matchmaking/lib/pass-undo';

describe('the undo of a pass', () => {
  afterEach(forgetPass);

  it('is offered for ten seconds after the pass and then no more', () => {
    rememberPass(7, 'Kai', 1_000);
    expect(pendingPass(1_000 + PASS_UNDO_MS - 1)).toEqual({ memberId: 7, name: 'Kai', until: 1_000 + PASS_UNDO_MS });
    expect(pendingPass(1_000 + PASS_UNDO_MS)).toBeNull();
  });

  it('is offered for the last pass only, until it is taken back', () => {
    rememberPass(7, 'Kai', 1_000);
    rememberPass(8, 'Bo', 2_000);
    expect(pendingPass(2_500)?.memberId).toBe(8);
    forgetPass();
    expect(pendingPass(2_500)).toBeNull();
  });
});
