import { useLayoutEffect, useRef, type ReactNode } from 'react';

/** Where the focus goes when a modal closes and the control that opened it is gone (a Like
 *  button becomes "You liked Kai" once it is answered): the page is not left holding nothing. */
export type FocusTarget = () => HTMLElement | null | undefined;

/** A native modal <dialog> shown while `open` (focus kept inside, Esc closes, the page behind
 *  inert). Opened in a layout effect, so that what it holds is laid out in the open dialog by the
 *  time its own effects run (the photo viewer scrolls to a photo). `focus` picks the first focus
 *  inside (the browser's otherwise: the first control); `returnFocus` takes it when it closes and
 *  the browser had nowhere left to give it back to; `closeFocus` takes it whenever it closes, in the
 *  same layout effect: otherwise the browser first gives it back to the opener (a send button) and
 *  the dialog's close event, a task later, moves it again, so a screen reader hears both and a
 *  check in between sees the opener. */
export function useModal(open: boolean, { focus, returnFocus, closeFocus }: { focus?: FocusTarget; returnFocus?: FocusTarget; closeFocus?: FocusTarget } = {}) {
  const ref = useRef<HTMLDialogElement>(null);
  const wasOpen = useRef(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) {
      el.showModal?.();
      focus?.()?.focus();
    }
    if (!open && el.open) el.close();
    if (!open && wasOpen.current) {
      if (closeFocus) closeFocus()?.focus();
      else if (document.activeElement === null || document.activeElement === document.body) returnFocus?.()?.focus();
    }
    wasOpen.current = open;
    // `focus` and `returnFocus` are read when the dialog opens or closes, not followed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  return ref;
}

/** A modal confirmation. `initialFocus`: 'title' puts the first focus on the title (a dialog
 *  whose first control is a text box would open the phone's keyboard over what it asks), a
 *  selector on that control (the dialog's main action); the first control otherwise.
 *  `describedBy`: the id of the text a screen reader reads with the title. `returnFocus` and
 *  `closeFocus`: as `useModal`'s. */
export function Dialog({ open, title, onClose, children, testId, initialFocus, returnFocus, closeFocus, describedBy }: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  testId: string;
  initialFocus?: 'title' | string;
  returnFocus?: FocusTarget;
  closeFocus?: FocusTarget;
  describedBy?: string;
}) {
  const ref = useModal(open, {
    focus: initialFocus === undefined ? undefined : () => ref.current?.querySelector<HTMLElement>(initialFocus === 'title' ? 'h2' : initialFocus),
    returnFocus,
    closeFocus,
  });
  return (
    <dialog ref={ref} className="mm-dialog" aria-labelledby={`${testId}-title`} aria-describedby={describedBy} data-testid={testId} onClose={onClose}>
      {open ? (
        <>
          <h2 id={`${testId}-title`} tabIndex={-1}>{title}</h2>
          {children}
        </>
      ) : null}
    </dialog>
  );
}
