import { useEffect, useRef, type PointerEvent } from 'react';
import { useStore } from '@/lib/store';
import { closeToast, pauseToast, resumeToast, toastStore, TOAST_SWIPE_THRESHOLD_PX, type Toast } from '@/lib/toast';
import { useT } from '@/lib/i18n';

/** Top-center toast area: pause on hover/focus, swipe (50 px) to dismiss. */
export function Toaster() {
  const t = useT();
  const toasts = useStore(toastStore, (s) => s.toasts);
  const area = useRef<HTMLElement>(null);
  // The page moves down by the toasts' height while they show: on a phone they would otherwise
  // sit on the step header or the profile name, text on text.
  useEffect(() => {
    const el = area.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() => {
      const list = el.querySelector('.toaster-list');
      const height = list && list.childElementCount ? list.getBoundingClientRect().bottom : 0;
      root.style.setProperty('--toaster-h', `${Math.ceil(height)}px`);
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--toaster-h');
    };
  }, []);
  return (
    <section ref={area} className="toaster" aria-label={t('common.notifications')} aria-live="polite">
      {/* Not a list: each toast is a status (or alert) of its own, which a list item cannot be. */}
      <div className="toaster-list">
        {toasts.map((toast) => (
          <ToastItem key={toast.id} toast={toast} />
        ))}
      </div>
    </section>
  );
}

function ToastItem({ toast }: { toast: Toast }) {
  const t = useT();
  const ref = useRef<HTMLDivElement>(null);
  const start = useRef<{ x: number; y: number; id: number } | null>(null);

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if ((e.target as HTMLElement).closest('button')) return;
    start.current = { x: e.clientX, y: e.clientY, id: e.pointerId };
    pauseToast(toast.id);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (!start.current || !ref.current) return;
    const dx = e.clientX - start.current.x;
    const dy = Math.min(0, e.clientY - start.current.y);
    const d = Math.abs(dx) > Math.abs(dy) ? `translateX(${dx}px)` : `translateY(${dy}px)`;
    ref.current.style.transform = d;
  };
  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    if (!start.current || !ref.current) return;
    const dx = e.clientX - start.current.x;
    const dy = e.clientY - start.current.y;
    start.current = null;
    if (Math.abs(dx) >= TOAST_SWIPE_THRESHOLD_PX || dy <= -TOAST_SWIPE_THRESHOLD_PX) {
      closeToast(toast.id);
    } else {
      ref.current.style.transform = '';
      resumeToast(toast.id);
    }
  };

  return (
    <div
      ref={ref}
      className={`toast toast-${toast.color}${toast.open ? '' : ' toast-closing'}`}
      role={toast.color === 'error' ? 'alert' : 'status'}
      data-testid={`toast-${toast.color}`}
      tabIndex={0}
      onMouseEnter={() => pauseToast(toast.id)}
      onMouseLeave={() => resumeToast(toast.id)}
      onFocus={() => pauseToast(toast.id)}
      onBlur={() => resumeToast(toast.id)}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
    >
      <span className="toast-title">{toast.title}</span>
      {toast.action ? (
        <button
          type="button"
          className="toast-action"
          onClick={() => {
            toast.action?.onClick();
            closeToast(toast.id);
          }}
        >
          {toast.action.label}
        </button>
      ) : null}
      <button type="button" className="toast-close" aria-label={t('common.close')} onClick={() => closeToast(toast.id)}>
        ×
      </button>
    </div>
  );
}
