import { afterEach, describe, expect, it } from 'vitest';
import * as built from 'virtual:core-rules';
import { loadCore } from '@/lib/wasm';
import { PASS_UNDO_MS, forgetPass, pendingPass, rememberPass } from '@/features/matchmaking/lib/pass-undo';
import { LIKE_COMMENT_MAX } from '@/features/matchmaking/components/like-sheet';

describe('the undo of a pass', () => {
  afterEach(forgetPass);

  it('is offered for the core’s window after the pass and then no more', async () => {
    const { passUndoSecs } = (await import('@/wasm-rules-pkg/kizuna_wasm_rules')).webRules();
    expect(PASS_UNDO_MS).toBe(passUndoSecs * 1000);
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

describe('the core’s rules asked at build time (virtual:core-rules)', () => {
  it('are the loaded core’s: every field limit by its wire name, and the pass window', async () => {
    const cat = (await loadCore()).catalogues();
    const exported = built as unknown as Record<string, unknown>;
    for (const [field, rule] of Object.entries(cat.limits)) expect(exported[field], field).toEqual({ min: rule.min, max: rule.max });
    expect(built.passUndoSecs).toBe(10);
    expect(LIKE_COMMENT_MAX).toBe(cat.limits.likeComment!.max);
  });
});
