import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LiffMockPlugin } from '@line/liff-mock';
import { englishScreens, renderScreen } from '@/test/render';
import { liff } from '@/lib/liff';
import { setConfigForTest } from '@/lib/config';
import { refusal, type FlexMessage } from '@/lib/line-share';
import { InviteCard } from '@/features/profile/components/invite-card';

// The app on the mock platform: the real SDK, @line/liff-mock's answers.
vi.mock('@/lib/liff', async (original) => ({ ...(await original<typeof import('@/lib/liff')>()), isMocked: () => true }));
type Mock = { $mock: { set: (f: (prev: Record<string, unknown>) => Record<string, unknown>) => void } };
const answer = (values: Record<string, unknown>) => (liff as unknown as Mock).$mock.set((prev) => ({ ...prev, ...values }));

beforeAll(async () => {
  await englishScreens();
  setConfigForTest({ lineBotId: '@kizuna-test', liffId: '1650000000-invite', mockEnable: true, apiServerPath: '/api' });
  liff.use(new LiffMockPlugin() as unknown as Parameters<typeof liff.use>[0]);
  await liff.init({ liffId: '1650000000-invite', mock: true } as Parameters<typeof liff.init>[0]);
  liff.login();
});
afterAll(() => setConfigForTest(null));
afterEach(() => vi.restoreAllMocks());

const outcome = () => screen.getByTestId('invite-outcome');

describe('Invite a friend to Kizuna', () => {
  it('sends one friend a bubble with the official account’s add-friend link and nothing about the member', async () => {
    answer({ isApiAvailable: true, shareTargetPicker: { status: 'success' } });
    const picker = vi.spyOn(liff, 'shareTargetPicker');
    const network = vi.spyOn(globalThis, 'fetch');
    renderScreen(<InviteCard />);
    await userEvent.click(screen.getByRole('button', { name: 'Invite a friend' }));
    await waitFor(() => expect(outcome().dataset.outcome).toBe('sent'));
    expect(outcome().textContent).toBe('Sent. Your friend has it in LINE.');
    const [messages, options] = picker.mock.calls[0]!;
    expect(options).toEqual({ isMultiple: false });
    const [bubble] = messages as FlexMessage[];
    expect(refusal(bubble!)).toBeNull();
    const json = JSON.stringify(bubble);
    expect(json).toContain('Join me on Kizuna');
    expect(json.match(/https?:\/\/[^"]+/g)).toEqual(['https://line.me/R/ti/p/%40kizuna-test']);
    expect(json).not.toMatch(/"(image|hero)"/);
    expect(network).not.toHaveBeenCalled();
  });

  it.each([
    ['cancelled', { isApiAvailable: true, shareTargetPicker: false }, "Not sent: LINE's friend list was closed before sending. Nothing was shared."],
    ['unavailable', { isApiAvailable: false }, 'Sharing with a LINE friend is not available here. Open Kizuna in the LINE app, and update LINE if it is old.'],
  ])('%s: says so under the button', async (kind, values, said) => {
    answer(values);
    renderScreen(<InviteCard />);
    await userEvent.click(screen.getByRole('button', { name: 'Invite a friend' }));
    await waitFor(() => expect(outcome().dataset.outcome).toBe(kind));
    expect(outcome().textContent).toBe(said);
  });

  it('an error thrown: says so', async () => {
    answer({ isApiAvailable: true });
    vi.spyOn(liff, 'shareTargetPicker').mockRejectedValue(Object.assign(new Error('boom'), { code: 'INVALID_ARGUMENT' }));
    renderScreen(<InviteCard />);
    await userEvent.click(screen.getByRole('button', { name: 'Invite a friend' }));
    await waitFor(() => expect(outcome().dataset.outcome).toBe('failed'));
  });
});
