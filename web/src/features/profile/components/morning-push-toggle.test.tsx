import { beforeAll, afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { resetToasts, toastStore } from '@/lib/toast';
import { englishScreens, renderScreen } from '@/test/render';
import { notificationsApi, type NotificationSettings } from '@/features/profile/api/notifications-api';
import { MorningPushToggle, PushToggle } from '@/features/profile/components/morning-push-toggle';

const ALL_ON: NotificationSettings = { introductions: true, matches: true, messages: true };

async function morningSwitch() {
  const box = screen.getByTestId<HTMLInputElement>('morning-push');
  await waitFor(() => expect(box.dataset.state).not.toBe('loading'));
  return box;
}

describe('the push switches', () => {
  beforeAll(englishScreens);
  afterEach(resetToasts);

  it('shows the stored setting and turns it off at once, saved', async () => {
    vi.spyOn(notificationsApi, 'get').mockResolvedValue(ALL_ON);
    let answer!: (v: NotificationSettings) => void;
    const put = vi.spyOn(notificationsApi, 'put').mockImplementation(() => new Promise((r) => (answer = r)));
    renderScreen(<MorningPushToggle />);
    const box = await morningSwitch();
    expect(box.checked).toBe(true);
    await userEvent.click(box);
    expect(box.checked).toBe(false);
    expect(put).toHaveBeenCalledWith({ introductions: false });
    await act(async () => answer({ ...ALL_ON, introductions: false }));
    expect(box.checked).toBe(false);
    expect(toastStore.get().toasts).toHaveLength(0);
  });

  it('moves back with an error toast when the save fails', async () => {
    vi.spyOn(notificationsApi, 'get').mockResolvedValue(ALL_ON);
    let fail!: (e: Error) => void;
    vi.spyOn(notificationsApi, 'put').mockImplementation(() => new Promise((_, rej) => (fail = rej)));
    renderScreen(<MorningPushToggle />);
    const box = await morningSwitch();
    await userEvent.click(box);
    expect(box.checked).toBe(false);
    await act(async () => fail(new Error('offline')));
    expect(box.checked).toBe(true);
    expect(toastStore.get().toasts.map((t) => [t.color, t.title])).toEqual([['error', 'The setting could not be saved. Please try again.']]);
  });

  it('stays disabled when the setting cannot be read', async () => {
    vi.spyOn(notificationsApi, 'get').mockRejectedValue(new Error('offline'));
    const put = vi.spyOn(notificationsApi, 'put');
    renderScreen(<MorningPushToggle />);
    await screen.findByText(/could not be loaded/);
    const box = screen.getByTestId<HTMLInputElement>('morning-push');
    expect(box.disabled).toBe(true);
    await userEvent.click(box);
    expect(put).not.toHaveBeenCalled();
  });

  it('the three switches ask for the settings once', async () => {
    const get = vi.spyOn(notificationsApi, 'get').mockResolvedValue({ ...ALL_ON, messages: false });
    renderScreen(
      <>
        <MorningPushToggle />
        <PushToggle kind="matches" />
        <PushToggle kind="messages" />
      </>,
    );
    await waitFor(() => expect(screen.getByTestId('message-push').dataset.state).toBe('off'));
    expect(screen.getByTestId('match-push').dataset.state).toBe('on');
    expect(get).toHaveBeenCalledTimes(1);
  });
});
