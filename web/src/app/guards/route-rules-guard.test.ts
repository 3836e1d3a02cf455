import { describe, expect, it } from 'vitest';
import { decideRouteRule } from '@/app/guards/route-rules-guard';

describe('route rules guard', () => {
  const origin = 'https://app.example';
  it('proceeds without a rule or redirect', () => {
    expect(decideRouteRule(null, origin)).toEqual({ kind: 'proceed' });
    expect(decideRouteRule({ redirect: null }, origin)).toEqual({ kind: 'proceed' });
  });
  it('redirects inside the app for paths and same-origin URLs', () => {
    expect(decideRouteRule({ redirect: '/profile' }, origin)).toEqual({ kind: 'redirect', to: '/profile' });
    expect(decideRouteRule({ redirect: 'https://app.example/dev?x=1' }, origin)).toEqual({ kind: 'redirect', to: '/dev?x=1' });
  });
  it('loads external targets in full', () => {
    expect(decideRouteRule({ redirect: 'https://line.me/R/ti/p/@bot' }, origin)).toEqual({
      kind: 'redirect',
      to: 'https://line.me/R/ti/p/@bot',
      external: true,
    });
  });
});
