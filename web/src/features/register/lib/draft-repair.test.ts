import { beforeEach, describe, expect, it } from 'vitest';
import { loadCore } from '@/lib/wasm';
import { clearDraftStorage, loadDraft, saveDraft } from '@/features/register/lib/draft-storage';

// With the real core: a damaged or old draft never crashes the form, it is repaired field by field.
describe('stored draft repaired by the core', () => {
  beforeEach(() => {
    localStorage.clear();
    clearDraftStorage();
  });

  it('starts empty without a stored draft', async () => {
    const core = await loadCore();
    const { draft } = loadDraft(core);
    expect(draft).toEqual(core.emptyDraft());
  });

  it('keeps what it can of a damaged draft and stores the repaired one', async () => {
    const core = await loadCore();
    localStorage.setItem(
      'kizuna:register-form',
      JSON.stringify({ version: 2, nickname: 'Mei', height: 165, hobbyTagIds: 'oops', photoNameList: ['local-abc', 7], conditions: null }),
    );
    const result = loadDraft(core);
    expect(result.draft.nickname).toBe('Mei');
    expect(Array.isArray(result.draft.hobbyTagIds)).toBe(true);
    expect(result.draft.photoNameList).toHaveLength(6);
    expect(result.repaired.length + result.dropped.length).toBeGreaterThan(0);
    expect(JSON.parse(localStorage.getItem('kizuna:register-form')!)).toEqual(result.draft);
  });

  it('survives text that is not JSON', async () => {
    const core = await loadCore();
    localStorage.setItem('kizuna:register-form', '{{{');
    expect(loadDraft(core).draft).toEqual(core.emptyDraft());
  });

  it('round-trips a saved draft unchanged', async () => {
    const core = await loadCore();
    const draft = { ...core.emptyDraft(), nickname: 'Kenji', hobbyTagIds: ['301'] };
    saveDraft(draft);
    expect(loadDraft(core)).toMatchObject({ draft, discarded: false, dropped: [] });
  });
});
