import { describe, expect, it, vi } from 'vitest';
import { liff } from '@/lib/liff';
import { setLogShipper } from '@/lib/logger';
import { bubbleMessage, linkButton, shareWithOneFriend, text } from '@/lib/line-share';

// Off the mock platform: the app loads LIFF's own is-api-available and share-target-picker
// modules on the first share. This browser is not LINE and nobody logged in, so the real SDK
// answers that the picker is not available, and it is never opened.
describe('sharing with the real LIFF modules, outside LINE', () => {
  it('loads the modules and says not available', async () => {
    setLogShipper(() => {});
    const message = bubbleMessage('Hello', [text('Hi')], linkButton('Open', 'https://liff.line.me/x/help?topic=safety'));
    expect((liff as unknown as Record<string, unknown>).shareTargetPicker).toBeUndefined();
    expect(await shareWithOneFriend(message)).toBe('unavailable');
    expect(typeof liff.isApiAvailable).toBe('function');
    expect(typeof liff.shareTargetPicker).toBe('function');
    const picker = vi.spyOn(liff, 'shareTargetPicker');
    expect(await shareWithOneFriend(message)).toBe('unavailable');
    expect(picker).not.toHaveBeenCalled();
  });
});
