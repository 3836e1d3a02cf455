/** An optimistic change: `next` shows at once; what the server answers is shown when it agrees
 *  (or corrects), and `previous` comes back when the save fails. Resolves to whether it was saved. */
export async function changeOptimistically<T>(
  previous: T,
  next: T,
  show: (value: T) => void,
  save: (value: T) => Promise<T>,
): Promise<boolean> {
  show(next);
  try {
    show(await save(next));
    return true;
  } catch {
    show(previous);
    return false;
  }
}
