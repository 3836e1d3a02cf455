import { useEffect, useRef, type ReactNode } from 'react';

/** A modal confirmation: the native <dialog> (focus trap, Esc closes, inert background). */
export function Dialog({ open, title, onClose, children, testId }: { open: boolean; title: string; onClose: () => void; children: ReactNode; testId: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) el.showModal?.();
    if (!open && el.open) el.close();
  }, [open]);
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
