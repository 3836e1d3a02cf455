/** The last pass and until when it may be taken back: the profile page passes, /today (where the
 *  card has left the list) offers the Undo. The server keeps the real window
 *  (`rules::PASS_UNDO_SECS`, 10 s in whole seconds): this only decides how long Undo shows. */
export const PASS_UNDO_MS = 10_000;

export interface PassUndo {
  memberId: number;
  name: string;
  /** `Date.now()` after which Undo is no longer shown. */
  until: number;
}

let last: PassUndo | null = null;

export function rememberPass(memberId: number, name: string, now = Date.now()): PassUndo {
  last = { memberId, name, until: now + PASS_UNDO_MS };
  return last;
}

/** The pass that may still be taken back, if any. */
export function pendingPass(now = Date.now()): PassUndo | null {
  return last !== null && last.until > now ? last : null;
}

export function forgetPass(): void {
  last = null;
}
