import { useLayoutEffect, useRef, type ReactNode } from 'react';

/** A native modal <dialog> shown while `open` (focus kept inside, Esc closes, the page behind
 *  inert). Opened in a layout effect, so that what it holds is laid out in the open dialog by the
 *  time its own effects run (the photo viewer scrolls to a photo). */
export function useModal(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) el.showModal?.();
    if (!open && el.open) el.close();
  }, [open]);
  return ref;
}

/** A modal confirmation. */
export function Dialog({ open, title, onClose, children, testId }: { open: boolean; title: string; onClose: () => void; children: ReactNode; testId: string }) {
  const ref = useModal(open);
  return (
    <dialog ref={ref} className="mm-dialog" aria-labelledby={`${testId}-title`} data-testid={testId} onClose={onClose}>
      {open ? (
        <>
          <h2 id={`${testId}-title`}>{title}</h2>
          {children}
        </>
      ) : null}
    </dialog>
  );
}
