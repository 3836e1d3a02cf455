import { passUndoSecs } from 'virtual:core-rules';

/** The last pass and until when it may be taken back: the profile page passes, /today (where the
 *  card has left the list) offers the Undo. The server keeps the real window, the core's
 *  `rules::PASS_UNDO_SECS` in whole seconds (asked of the wasm package when the app is built):
 *  this only decides how long Undo shows, as long as that. */
export const PASS_UNDO_MS = passUndoSecs * 1000;

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
