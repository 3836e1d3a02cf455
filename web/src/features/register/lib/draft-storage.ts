import type { Core, RegisterDraft, RepairResult } from '@/lib/wasm';
import { readJson, readRaw, remove, StorageKey, writeJson, writeRaw } from '@/lib/storage';

/** The register draft, its current step and its local photos in local storage
 *  (docs/design.md "Client storage"). A damaged or older draft is repaired by the core, never here. */
export function loadDraft(core: Pick<Core, 'repairDraft'>): RepairResult {
  const stored = readJson(StorageKey.registerForm);
  // Text that is not JSON at all is as damaged as it gets: the core turns null into a fresh draft.
  const result = core.repairDraft(stored === undefined ? null : stored);
  if (result.discarded || result.repaired.length || result.dropped.length) saveDraft(result.draft);
  return result;
}

/** Whether a draft is stored (however damaged): the core must read it back before it is shown. */
export function hasStoredDraft(): boolean {
  return readRaw(StorageKey.registerForm) !== null;
}

export function saveDraft(draft: RegisterDraft): boolean {
  return writeJson(StorageKey.registerForm, draft);
}

export function loadStep(count: number): number {
  const n = Number.parseInt(readRaw(StorageKey.registerPage) ?? '0', 10);
  return Number.isInteger(n) && n >= 0 && n < count ? n : 0;
}

export function saveStep(step: number): void {
  writeRaw(StorageKey.registerPage, String(step));
}

/** Local photos: slot token ("local-…") → downscaled JPEG data URL. Kept in memory too, so a
 *  full storage quota costs persistence, not the photo. */
const memoryPhotos = new Map<string, string>();

export function loadPhotos(): Record<string, string> {
  const stored = readJson(StorageKey.profilePhotos);
  const out: Record<string, string> = {};
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const [k, v] of Object.entries(stored as Record<string, unknown>)) {
      if (typeof v === 'string' && v.startsWith('data:image/')) out[k] = v;
    }
  }
  for (const [k, v] of memoryPhotos) out[k] = v;
  return out;
}

/** Returns false when the photo could only be kept in memory. */
export function savePhoto(token: string, dataUrl: string): boolean {
  memoryPhotos.set(token, dataUrl);
  const all = loadPhotos();
  all[token] = dataUrl;
  return writeJson(StorageKey.profilePhotos, all);
}

/** Drops photos no slot refers to any more. */
export function prunePhotos(keep: string[]): void {
  const all = loadPhotos();
  const next: Record<string, string> = {};
  for (const k of keep) if (all[k]) next[k] = all[k];
  for (const k of [...memoryPhotos.keys()]) if (!keep.includes(k)) memoryPhotos.delete(k);
  writeJson(StorageKey.profilePhotos, next);
}

export function getPhoto(token: string): string | undefined {
  return memoryPhotos.get(token) ?? loadPhotos()[token];
}

export function isLocalToken(name: string): boolean {
  return name.startsWith('local-');
}

export function newLocalToken(): string {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return `local-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** After a successful submit: the draft and the two cached entries (step, photos) go. */
export function clearDraftStorage(): void {
  remove(StorageKey.registerForm);
  remove(StorageKey.registerPage);
  remove(StorageKey.profilePhotos);
  remove(StorageKey.emailConfirmed);
  remove(StorageKey.resubmit);
  memoryPhotos.clear();
}
