import { beforeEach, describe, expect, it } from 'vitest';
import { captureStartParams, stripStartParams, takeRedirectPath } from '@/app/start-params';

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
  it('strips the start parameters from the URL', () => {
    expect(stripStartParams(new URL('https://x/register?liff.state=%2Fa&x=1&liff.referrer=y'))).toBe('/register?x=1');
  });
});
