import { beforeEach, describe, expect, it } from 'vitest';
import { captureStartParams, splitVia, stripStartParams, takePushVisit, takeRedirectPath } from '@/app/start-params';

describe('start parameters', () => {
  beforeEach(() => localStorage.clear());
  it('stores liff.state and redirect under kizuna:redirect-path and hands them back once', () => {
    expect(captureStartParams(new URL('https://x/?liff.state=%2Fprofile%3Fa%3D1'))).toBe('/profile?a=1');
    expect(localStorage.getItem('kizuna:redirect-path')).toBe('/profile?a=1');
    expect(takeRedirectPath()).toBe('/profile?a=1');
    expect(takeRedirectPath()).toBeNull();
    captureStartParams(new URL('https://x/?redirect=/register'));
    expect(takeRedirectPath()).toBe('/register');
  });
  it('ignores targets outside the app', () => {
    expect(captureStartParams(new URL('https://x/?redirect=https://evil.example'))).toBeNull();
    expect(captureStartParams(new URL('https://x/?redirect=//evil.example'))).toBeNull();
  });
  it("keeps a push link's kind apart from its path, for one count", () => {
    expect(captureStartParams(new URL('https://x/?liff.state=%2Fchat%3Fmatch%3D7%26via%3Dmessage'))).toBe('/chat?match=7');
    expect(localStorage.getItem('kizuna:redirect-path')).toBe('/chat?match=7');
    expect(takePushVisit()).toBe('message');
    expect(takePushVisit()).toBeNull();
    captureStartParams(new URL('https://x/today?via=introductions'));
    expect(takePushVisit()).toBe('introductions');
    captureStartParams(new URL('https://x/?liff.state=%2Fmatches%3Fvia%3Dwe_met'));
    expect(takePushVisit()).toBe('we_met');
    captureStartParams(new URL('https://x/?liff.state=%2Fmatches%3Fvia%3Dsafety'));
    expect(takePushVisit()).toBe('safety');
    captureStartParams(new URL('https://x/?liff.state=%2Ftoday%3Fvia%3Devil'));
    expect(takePushVisit()).toBeNull();
    expect(splitVia('/profile?via=review#x')).toEqual({ path: '/profile#x', via: 'review' });
  });
  it('strips the start parameters from the URL', () => {
    expect(stripStartParams(new URL('https://x/register?liff.state=%2Fa&x=1&liff.referrer=y'))).toBe('/register?x=1');
    expect(stripStartParams(new URL('https://x/today?via=introductions'))).toBe('/today');
  });
});
