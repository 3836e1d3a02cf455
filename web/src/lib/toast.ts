import { createStore } from '@/lib/store';

/** Toast queue: at most 5 shown (oldest dropped), 3000 ms default, closed toasts
 *  removed 200 ms later, auto-close paused while hovered or focused. */
export const TOAST_MAX_VISIBLE = 5;
export const TOAST_REMOVE_DELAY_MS = 200;
export const TOAST_DEFAULT_DURATION_MS = 3000;
export const TOAST_ERROR_DURATION_MS = 3000;
export const TOAST_SWIPE_THRESHOLD_PX = 50;

export type ToastColor = 'neutral' | 'success' | 'error';

export interface ToastAction {
  label: string;
  onClick: () => void;
}

export interface Toast {
  id: number;
  open: boolean;
  title: string;
  color: ToastColor;
  duration: number;
  action?: ToastAction;
}

export interface ToastInput {
  title: string;
  color?: ToastColor;
  duration?: number;
  action?: ToastAction;
}

interface Timer {
  handle: ReturnType<typeof setTimeout> | null;
  remaining: number;
  startedAt: number;
}

export const toastStore = createStore<{ toasts: Toast[] }>({ toasts: [] });
const timers = new Map<number, Timer>();
let nextId = 1;

function startTimer(id: number) {
  const timer = timers.get(id);
  if (!timer || timer.handle !== null || !Number.isFinite(timer.remaining)) return;
  timer.startedAt = Date.now();
  timer.handle = setTimeout(() => closeToast(id), timer.remaining);
}

export function addToast(input: ToastInput): number {
  const id = nextId++;
  const color = input.color ?? 'neutral';
  const duration =
    input.duration ?? (color === 'error' ? TOAST_ERROR_DURATION_MS : TOAST_DEFAULT_DURATION_MS);
  const toast: Toast = { id, open: true, title: input.title, color, duration, action: input.action };
  toastStore.set((s) => ({ toasts: [...s.toasts, toast] }));
  timers.set(id, { handle: null, remaining: duration > 0 ? duration : Infinity, startedAt: 0 });
  startTimer(id);
  const open = toastStore.get().toasts.filter((t) => t.open);
  for (const old of open.slice(0, Math.max(0, open.length - TOAST_MAX_VISIBLE))) closeToast(old.id);
  return id;
}

export function closeToast(id: number): void {
  const timer = timers.get(id);
  if (timer?.handle) clearTimeout(timer.handle);
  timers.delete(id);
  const toast = toastStore.get().toasts.find((t) => t.id === id);
  if (!toast || !toast.open) return;
  toastStore.set((s) => ({ toasts: s.toasts.map((t) => (t.id === id ? { ...t, open: false } : t)) }));
  setTimeout(() => {
    toastStore.set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
  }, TOAST_REMOVE_DELAY_MS);
}

/** Hover or focus: stop the clock, keeping the time left. */
export function pauseToast(id: number): void {
  const timer = timers.get(id);
  if (!timer || timer.handle === null) return;
  clearTimeout(timer.handle);
  timer.handle = null;
  timer.remaining = Math.max(0, timer.remaining - (Date.now() - timer.startedAt));
}

export function resumeToast(id: number): void {
  startTimer(id);
}

export const toast = {
  show: (title: string, opts: Omit<ToastInput, 'title'> = {}) => addToast({ title, ...opts }),
  success: (title: string, opts: Omit<ToastInput, 'title' | 'color'> = {}) =>
    addToast({ title, color: 'success', ...opts }),
  error: (title: string, opts: Omit<ToastInput, 'title' | 'color'> = {}) =>
    addToast({ title, color: 'error', ...opts }),
};

/** Test helper. */
export function resetToasts(): void {
  for (const t of timers.values()) if (t.handle) clearTimeout(t.handle);
  timers.clear();
  toastStore.set({ toasts: [] });
}
