import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { lineShare } from 'virtual:core-rules';
import { LiffMockPlugin } from '@line/liff-mock';
import { liff } from '@/lib/liff';
import { setLogShipper } from '@/lib/logger';
import { bubbleMessage, linkButton, refusal, shareWithOneFriend, text, truncate, type FlexMessage } from '@/lib/line-share';

// The app as it runs on the mock platform: the real SDK with @line/liff-mock's answers (the mock
// stands in for LINE's modules, so the app must not load them over it).
vi.mock('@/lib/liff', async (original) => ({ ...(await original<typeof import('@/lib/liff')>()), isMocked: () => true }));

type Mock = { $mock: { set: (f: (prev: Record<string, unknown>) => Record<string, unknown>) => void } };
const answer = (values: Record<string, unknown>) => (liff as unknown as Mock).$mock.set((prev) => ({ ...prev, ...values }));

const message = (): FlexMessage => bubbleMessage('Hello', [text('Hi there')], linkButton('Open', 'https://liff.line.me/x/help?topic=safety'));

beforeAll(async () => {
  liff.use(new LiffMockPlugin() as unknown as Parameters<typeof liff.use>[0]);
  await liff.init({ liffId: 'test-liff', mock: true } as Parameters<typeof liff.init>[0]);
  liff.login();
});

afterEach(() => {
  vi.restoreAllMocks();
  setLogShipper(null);
});

describe('sharing with one LINE friend (liff.shareTargetPicker through @line/liff-mock)', () => {
  it('is sent when LINE answers {status: success}, with exactly the message and one friend only', async () => {
    answer({ isApiAvailable: true, shareTargetPicker: { status: 'success' } });
    const picker = vi.spyOn(liff, 'shareTargetPicker');
    const sent = message();
    expect(await shareWithOneFriend(sent)).toBe('sent');
    expect(picker).toHaveBeenCalledTimes(1);
    expect(picker).toHaveBeenCalledWith([sent], { isMultiple: false });
  });

  it.each([
    ['nothing (the member closed the list)', undefined],
    ['false', false],
  ])('is cancelled when LINE answers %s', async (_, value) => {
    answer({ isApiAvailable: true, shareTargetPicker: value });
    expect(await shareWithOneFriend(message())).toBe('cancelled');
  });

  it('is not available, and the picker never opens, where LINE says the API is not', async () => {
    answer({ isApiAvailable: false, shareTargetPicker: { status: 'success' } });
    const available = vi.spyOn(liff, 'isApiAvailable');
    const picker = vi.spyOn(liff, 'shareTargetPicker');
    expect(await shareWithOneFriend(message())).toBe('unavailable');
    expect(available).toHaveBeenCalledWith('shareTargetPicker');
    expect(picker).not.toHaveBeenCalled();
  });

  it('failed when the picker throws; only the error’s code is logged, never what was shared', async () => {
    answer({ isApiAvailable: true });
    const lines: string[] = [];
    setLogShipper((_, line) => lines.push(line));
    vi.spyOn(liff, 'shareTargetPicker').mockRejectedValue(Object.assign(new Error('could not send "Hi there" to Kai'), { code: 'EXCEPTION_IN_SUBWINDOW' }));
    expect(await shareWithOneFriend(message())).toBe('failed');
    expect(lines).toEqual(['share target picker failed: EXCEPTION_IN_SUBWINDOW']);
  });
});

describe('the Flex message', () => {
  it('cuts the altText and a label to LINE’s limits, in UTF-16 code units, without halving a character', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('😀😀😀', 4)).toBe('😀…');
    const long = bubbleMessage('あ'.repeat(2000), [text('x')], linkButton('a very long button label indeed', 'https://example.com'));
    expect(long.altText.length).toBe(lineShare.altTextMaxChars);
    expect(long.contents.footer.contents[0]).toMatchObject({ action: { label: expect.stringMatching(/…$/) } });
    expect((long.contents.footer.contents[0] as { action: { label: string } }).action.label.length).toBe(lineShare.actionLabelMaxChars);
    expect(refusal(long)).toBeNull();
  });

  it('is refused for what LINE would refuse: an empty text, a link that is not HTTPS, an image, a bubble too large', () => {
    expect(refusal(message())).toBeNull();
    expect(refusal(bubbleMessage('Hi', [text(' ')], linkButton('Open', 'https://x.test')))).toBe('empty text');
    expect(refusal(bubbleMessage('Hi', [text('a')], linkButton('Open', 'http://x.test')))).toBe('uri');
    expect(refusal(bubbleMessage(' ', [text('a')], linkButton('Open', 'https://x.test')))).toBe('altText');
    const withImage = message();
    withImage.contents.body.contents.push({ type: 'image', url: 'https://x.test/a.jpg' } as never);
    expect(refusal(withImage)).toBe('image');
    const large = bubbleMessage('Hi', [text('あ'.repeat(lineShare.bubbleMaxBytes / 3))], linkButton('Open', 'https://x.test'));
    expect(refusal(large)).toBe('bubble size');
  });
});
