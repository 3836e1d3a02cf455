import { getMyInfo } from '@/lib/user-api';
import { readJson, remove, StorageKey, writeJson, writeRaw } from '@/lib/storage';
import { loadCore } from '@/lib/wasm';

/** A REJECTED member's register form (and an APPROVED member's edit form), filled from the stored profile: the profile becomes
 *  the form's draft through the core's draft repair (the same reading as any stored draft), on its
 *  first step. "Edit and resubmit" on /profile always starts afresh; the register page, opened
 *  directly, keeps a draft the member already began (`keepDraft`). Returns whether it wrote one. */
export async function startResubmission({ keepDraft = false } = {}): Promise<boolean> {
  // Absent reads as null, text that is not JSON as undefined: neither is a draft worth keeping.
  const stored = readJson(StorageKey.registerForm);
  if (keepDraft && stored !== null && stored !== undefined) return false;
  const [core, info] = await Promise.all([loadCore(), getMyInfo()]);
  // An approved member's form opens on their revision when one waits or was sent back (they
  // edit on from it), else on the approved profile.
  const repaired = core.repairDraft(info.revision?.profile ?? info.profile ?? null);
  if (repaired.discarded) throw new Error('the stored profile could not be read as a draft');
  remove(StorageKey.profilePhotos);
  remove(StorageKey.emailConfirmed);
  writeJson(StorageKey.registerForm, repaired.draft);
  writeRaw(StorageKey.registerPage, '0');
  return true;
}
