import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LiffMockPlugin } from '@line/liff-mock';
import { englishScreens, renderScreen } from '@/test/render';
import { liff } from '@/lib/liff';
import { setConfigForTest } from '@/lib/config';
import { setLogShipper } from '@/lib/logger';
import type { FlexMessage } from '@/lib/line-share';
import type { MatchItem } from '@/features/matchmaking/api/matchmaking-api';
import { ChatHeader } from '@/features/matchmaking/components/chat-header';
import { localInputValue } from '@/features/matchmaking/lib/share-date';

// The app on the mock platform: the real SDK, @line/liff-mock's answers.
vi.mock('@/lib/liff', async (original) => ({ ...(await original<typeof import('@/lib/liff')>()), isMocked: () => true }));
type Mock = { $mock: { set: (f: (prev: Record<string, unknown>) => Record<string, unknown>) => void } };
const answer = (values: Record<string, unknown>) => (liff as unknown as Mock).$mock.set((prev) => ({ ...prev, ...values }));

const LIFF_ID = '1650000000-sharetest';
const PHOTO = 'kai-photo-1.jpg';
const match = { matchId: 7, member: { memberId: 11, nickname: 'Kai', photoNameList: [PHOTO] } } as unknown as MatchItem;

// jsdom has no modal dialogs: just enough of one for the sheets to open and close.
const realShowModal = HTMLDialogElement.prototype.showModal;
const realClose = HTMLDialogElement.prototype.close;
beforeAll(async () => {
  await englishScreens();
  HTMLDialogElement.prototype.showModal = function (this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  HTMLDialogElement.prototype.close = function (this: HTMLDialogElement) {
    this.removeAttribute('open');
    this.dispatchEvent(new Event('close'));
  };
  setConfigForTest({ lineBotId: '@kizuna-test', liffId: LIFF_ID, mockEnable: true, apiServerPath: '/api' });
  liff.use(new LiffMockPlugin() as unknown as Parameters<typeof liff.use>[0]);
  await liff.init({ liffId: LIFF_ID, mock: true } as Parameters<typeof liff.init>[0]);
  liff.login();
});
afterAll(() => {
  HTMLDialogElement.prototype.showModal = realShowModal;
  HTMLDialogElement.prototype.close = realClose;
  setConfigForTest(null);
});
afterEach(() => {
  vi.restoreAllMocks();
  setLogShipper(() => {});
});

const inTwoDays = () => {
  const d = new Date(Date.now() + 2 * 86_400_000);
  d.setHours(19, 30, 0, 0);
  return d;
};

/** The chat's header, its menu, "Share my date", the plan typed in. */
async function openSheet(place = 'Cafe Lumi, Da’an', when: Date | null = inTwoDays()) {
  const user = userEvent.setup();
  renderScreen(<ChatHeader match={match} ended={false} onEnded={() => {}} />);
  await user.click(screen.getByTestId('chat-menu'));
  await user.click(screen.getByTestId('menu-share-date'));
  const sheet = screen.getByRole('dialog', { name: 'Share my date' });
  expect(sheet.textContent).toContain('Kai is not told');
  if (place) await user.type(screen.getByTestId('share-date-place'), place);
  if (when) fireEvent.change(screen.getByTestId('share-date-when'), { target: { value: localInputValue(when) } });
  return { user, sheet };
}

const outcome = () => screen.getByTestId('share-date-outcome');

describe('Share my date', () => {
  it('sends one friend the bubble, says so, and no call reaches the server', async () => {
    answer({ isApiAvailable: true, shareTargetPicker: { status: 'success' } });
    const picker = vi.spyOn(liff, 'shareTargetPicker');
    const network = vi.spyOn(globalThis, 'fetch');
    const { user } = await openSheet();
    await waitFor(() => expect((screen.getByTestId('share-date-send') as HTMLButtonElement).disabled).toBe(false));
    await user.click(screen.getByTestId('share-date-send'));
    await waitFor(() => expect(outcome().dataset.outcome).toBe('sent'));
    expect(outcome().textContent).toBe('Sent. Your friend has it in LINE.');
    expect(picker).toHaveBeenCalledTimes(1);
    const [messages, options] = picker.mock.calls[0]!;
    expect(options).toEqual({ isMultiple: false });
    const [bubble] = messages as FlexMessage[];
    const json = JSON.stringify(bubble);
    expect(json).toContain('"Kai"');
    expect(json).toContain('"Cafe Lumi, Da’an"');
    expect(json).toContain(JSON.stringify(new Intl.DateTimeFormat('en', { dateStyle: 'full', timeStyle: 'short' }).format(inTwoDays())));
    expect(json).toContain(`"https://liff.line.me/${LIFF_ID}/help?topic=safety"`);
    expect(json).not.toContain(PHOTO);
    expect(json).not.toMatch(/"(image|hero)"/);
    expect(network).not.toHaveBeenCalled();
    // Done closes the sheet; opened again, it starts empty.
    await user.click(screen.getByTestId('share-date-done'));
    await user.click(screen.getByTestId('chat-menu'));
    await user.click(screen.getByTestId('menu-share-date'));
    expect((screen.getByTestId('share-date-place') as HTMLInputElement).value).toBe('');
  });

  it('cancelled: says nothing was shared and keeps the plan to try again', async () => {
    answer({ isApiAvailable: true, shareTargetPicker: undefined });
    const { user } = await openSheet();
    await waitFor(() => expect((screen.getByTestId('share-date-send') as HTMLButtonElement).disabled).toBe(false));
    await user.click(screen.getByTestId('share-date-send'));
    await waitFor(() => expect(outcome().dataset.outcome).toBe('cancelled'));
    expect(outcome().textContent).toBe("Not sent: LINE's friend list was closed before sending. Nothing was shared.");
    expect((screen.getByTestId('share-date-place') as HTMLInputElement).value).toBe('Cafe Lumi, Da’an');
    expect((screen.getByTestId('share-date-send') as HTMLButtonElement).disabled).toBe(false);
  });

  it('not available: said as the sheet opens, and the picker cannot be opened', async () => {
    answer({ isApiAvailable: false, shareTargetPicker: { status: 'success' } });
    const picker = vi.spyOn(liff, 'shareTargetPicker');
    await openSheet();
    await waitFor(() => expect(outcome().dataset.outcome).toBe('unavailable'));
    expect(outcome().textContent).toContain('Open Kizuna in the LINE app');
    expect((screen.getByTestId('share-date-send') as HTMLButtonElement).disabled).toBe(true);
    expect(picker).not.toHaveBeenCalled();
  });

  it('an error thrown: says so, nothing of the plan in the log', async () => {
    answer({ isApiAvailable: true });
    const lines: string[] = [];
    setLogShipper((_, line) => lines.push(line));
    vi.spyOn(liff, 'shareTargetPicker').mockRejectedValue(Object.assign(new Error('Cafe Lumi'), { code: 'EXCEPTION_IN_SUBWINDOW' }));
    const { user } = await openSheet();
    await waitFor(() => expect((screen.getByTestId('share-date-send') as HTMLButtonElement).disabled).toBe(false));
    await user.click(screen.getByTestId('share-date-send'));
    await waitFor(() => expect(outcome().dataset.outcome).toBe('failed'));
    expect(outcome().textContent).toBe('LINE could not open your friend list, so nothing was shared. Please try again.');
    expect(lines.join('\n')).not.toMatch(/Cafe|Lumi|Kai/);
  });

  it('a plan without a place or a time, or too far ahead, is not shared: each says why', async () => {
    answer({ isApiAvailable: true, shareTargetPicker: { status: 'success' } });
    const picker = vi.spyOn(liff, 'shareTargetPicker');
    const { user } = await openSheet('', null);
    await waitFor(() => expect((screen.getByTestId('share-date-send') as HTMLButtonElement).disabled).toBe(false));
    await user.click(screen.getByTestId('share-date-send'));
    screen.getByText('Write where you are meeting.');
    screen.getByText('Choose the date and time.');
    expect(screen.getByTestId('share-date-place').getAttribute('aria-invalid')).toBe('true');
    await user.type(screen.getByTestId('share-date-place'), 'Cafe');
    fireEvent.change(screen.getByTestId('share-date-when'), { target: { value: localInputValue(new Date(Date.now() + 91 * 86_400_000)) } });
    await user.click(screen.getByTestId('share-date-send'));
    screen.getByText('Choose a time from 12 hours ago up to 90 days ahead.');
    expect(picker).not.toHaveBeenCalled();
    // The place's box holds no more than the core allows.
    expect(screen.getByTestId('share-date-place').getAttribute('maxlength')).toBe('100');
  });
});
