import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addToast, closeToast, pauseToast, resetToasts, resumeToast, toastStore, toast } from '@/lib/toast';

const open = () => toastStore.get().toasts.filter((t) => t.open);

describe('toast queue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    resetToasts();
  });
  afterEach(() => vi.useRealTimers());

  it('auto-closes after 3000 ms and removes 200 ms later', () => {
    addToast({ title: 'hello' });
    expect(toastStore.get().toasts[0]).toMatchObject({ open: true, duration: 3000, color: 'neutral' });
    vi.advanceTimersByTime(2999);
    expect(open()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(open()).toHaveLength(0);
    expect(toastStore.get().toasts).toHaveLength(1);
    vi.advanceTimersByTime(199);
    expect(toastStore.get().toasts).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(toastStore.get().toasts).toHaveLength(0);
  });

  it('error toasts are red and last 3000 ms', () => {
    toast.error('boom');
    expect(toastStore.get().toasts[0]).toMatchObject({ color: 'error', duration: 3000 });
  });

  it('shows at most 5, dropping the oldest', () => {
    for (let i = 1; i <= 7; i++) addToast({ title: `t${i}` });
    expect(open().map((t) => t.title)).toEqual(['t3', 't4', 't5', 't6', 't7']);
    vi.advanceTimersByTime(200);
    expect(toastStore.get().toasts.map((t) => t.title)).toEqual(['t3', 't4', 't5', 't6', 't7']);
  });

  it('pauses the clock on hover/focus and resumes with the time left', () => {
    const id = addToast({ title: 'x' });
    vi.advanceTimersByTime(1000);
    pauseToast(id);
    vi.advanceTimersByTime(10_000);
    expect(open()).toHaveLength(1);
    resumeToast(id);
    vi.advanceTimersByTime(1999);
    expect(open()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(open()).toHaveLength(0);
  });

  it('closing by hand is idempotent', () => {
    const id = addToast({ title: 'x' });
    closeToast(id);
    closeToast(id);
    vi.advanceTimersByTime(200);
    expect(toastStore.get().toasts).toHaveLength(0);
  });
});
