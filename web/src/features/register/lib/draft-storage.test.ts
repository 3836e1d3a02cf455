import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  clearDraftStorage,
  getPhoto,
  loadDraft,
  loadPhotos,
  loadStep,
  prunePhotos,
  saveDraft,
  savePhoto,
  saveStep,
} from '@/features/register/lib/draft-storage';
import type { RegisterDraft, RepairResult } from '@/lib/wasm';

const draft = (nickname: string) => ({ version: 2, nickname }) as unknown as RegisterDraft;

describe('register draft storage', () => {
  beforeEach(() => {
    localStorage.clear();
    clearDraftStorage();
  });

  it('keeps the draft under kizuna:register-form and hands the stored JSON to the core', () => {
    saveDraft(draft('mei'));
    expect(JSON.parse(localStorage.getItem('kizuna:register-form')!)).toEqual({ version: 2, nickname: 'mei' });
    const repairDraft = vi.fn((stored: unknown): RepairResult => ({ draft: stored as RegisterDraft, repaired: [], dropped: [], discarded: false }));
    expect(loadDraft({ repairDraft }).draft).toEqual({ version: 2, nickname: 'mei' });
    expect(repairDraft).toHaveBeenCalledWith({ version: 2, nickname: 'mei' });
  });

  it('gives the core null for a missing or unparsable draft and stores the repaired one', () => {
    localStorage.setItem('kizuna:register-form', '{"version":2, broken');
    const repairDraft = vi.fn((): RepairResult => ({ draft: draft(''), repaired: [], dropped: [], discarded: true }));
    loadDraft({ repairDraft });
    expect(repairDraft).toHaveBeenCalledWith(null);
    expect(JSON.parse(localStorage.getItem('kizuna:register-form')!)).toEqual({ version: 2, nickname: '' });
  });

  it('keeps the current step under kizuna:register-page, bounded', () => {
    expect(loadStep(9)).toBe(0);
    saveStep(4);
    expect(localStorage.getItem('kizuna:register-page')).toBe('4');
    expect(loadStep(9)).toBe(4);
    expect(loadStep(3)).toBe(0);
    localStorage.setItem('kizuna:register-page', 'x');
    expect(loadStep(9)).toBe(0);
  });

  it('keeps photos under kizuna:profile-photos, in memory when storage is full', () => {
    expect(savePhoto('local-a', 'data:image/jpeg;base64,AAA')).toBe(true);
    expect(JSON.parse(localStorage.getItem('kizuna:profile-photos')!)).toEqual({ 'local-a': 'data:image/jpeg;base64,AAA' });
    const spy = vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    expect(savePhoto('local-b', 'data:image/jpeg;base64,BBB')).toBe(false);
    spy.mockRestore();
    expect(getPhoto('local-b')).toBe('data:image/jpeg;base64,BBB');
    prunePhotos(['local-b']);
    expect(loadPhotos()).toEqual({ 'local-b': 'data:image/jpeg;base64,BBB' });
  });

  it('clears the draft, the step and the photos together', () => {
    saveDraft(draft('x'));
    saveStep(2);
    savePhoto('local-a', 'data:image/jpeg;base64,AAA');
    clearDraftStorage();
    expect(localStorage.getItem('kizuna:register-form')).toBeNull();
    expect(localStorage.getItem('kizuna:register-page')).toBeNull();
    expect(localStorage.getItem('kizuna:profile-photos')).toBeNull();
    expect(getPhoto('local-a')).toBeUndefined();
  });
});
