import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRoot } from 'react-dom/client';
import { act } from 'react';
import { completeLocale, setLocale } from '@/lib/i18n';
import { setLogShipper } from '@/lib/logger';
import { resetToasts, toastStore } from '@/lib/toast';
import { notificationsApi, type NotificationSettings } from '@/features/profile/api/notifications-api';
import { MorningPushToggle } from '@/features/profile/components/morning-push-toggle';

async function render() {
  const host = document.createElement('div');
  document.body.append(host);
  await act(async () => createRoot(host).render(<MorningPushToggle />));
  return host.querySelector<HTMLInputElement>('[data-testid="morning-push"]')!;
}

describe('the morning push toggle', () => {
  beforeAll(async () => {
    // React's act() warns unless the environment says it is a test.
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    await setLocale('en');
    await completeLocale();
    setLogShipper(() => {});
  });
  afterEach(() => {
    document.body.innerHTML = '';
    resetToasts();
    vi.restoreAllMocks();
  });

  it('shows the stored setting and turns it off at once, saved', async () => {
    vi.spyOn(notificationsApi, 'get').mockResolvedValue({ introductions: true, matches: true, messages: true });
    let answer!: (v: NotificationSettings) => void;
    const put = vi.spyOn(notificationsApi, 'put').mockImplementation(() => new Promise((r) => (answer = r)));
    const box = await render();
    expect(box.checked).toBe(true);
    await act(async () => box.click());
    expect(box.checked).toBe(false);
    expect(put).toHaveBeenCalledWith({ introductions: false });
    await act(async () => answer({ introductions: false, matches: true, messages: true }));
    expect(box.checked).toBe(false);
    expect(toastStore.get().toasts).toHaveLength(0);
  });

  it('moves back with an error toast when the save fails', async () => {
    vi.spyOn(notificationsApi, 'get').mockResolvedValue({ introductions: true, matches: true, messages: true });
    let fail!: (e: Error) => void;
    vi.spyOn(notificationsApi, 'put').mockImplementation(() => new Promise((_, rej) => (fail = rej)));
    const box = await render();
    await act(async () => box.click());
    expect(box.checked).toBe(false);
    await act(async () => fail(new Error('offline')));
    expect(box.checked).toBe(true);
    expect(toastStore.get().toasts.map((t) => [t.color, t.title])).toEqual([['error', 'The setting could not be saved. Please try again.']]);
  });

  it('stays disabled when the setting cannot be read', async () => {
    vi.spyOn(notificationsApi, 'get').mockRejectedValue(new Error('offline'));
    const put = vi.spyOn(notificationsApi, 'put');
    const box = await render();
    expect(box.disabled).toBe(true);
    expect(document.body.textContent).toMatch(/could not be loaded/);
    await act(async () => box.click());
    expect(put).not.toHaveBeenCalled();
  });
});
