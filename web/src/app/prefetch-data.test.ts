import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReviewStatus } from '@/lib/app-state';

const asked: string[] = [];
let tell: (status: ReviewStatus | null) => void = () => {};

vi.mock('@/lib/query', () => ({
  queryKeys: { introductions: 'introductions', likes: 'likes', matches: 'matches', codes: 'codes', member: (id: number) => `member:${id}` },
  queryOptions: (key: string, load: () => Promise<unknown>) => ({ key, load }),
  prefetch: ({ key }: { key: string }) => asked.push(key),
}));
vi.mock('@/lib/user-api', () => ({
  afterMyInfo: () => new Promise<ReviewStatus | null>((resolve) => (tell = resolve)),
}));
vi.mock('@/features/matchmaking/api/matchmaking-api', () => ({
  matchmakingApi: { introductions: vi.fn(), member: vi.fn() },
}));

const { prefetchScreen } = await import('@/app/prefetch-data');

const status = (s: ReviewStatus['status']): ReviewStatus => ({ status: s, userId: 'U1', updatedAt: 0, reasons: [] });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('answers asked ahead of a cold tab', () => {
  beforeEach(() => {
    asked.length = 0;
  });

  it('go out only once my-info has proved the session and said APPROVED', async () => {
    prefetchScreen('today');
    await settle();
    expect(asked).toEqual([]);
    tell(status('APPROVED'));
    await settle();
    expect(asked).toEqual(['introductions', 'matches']);
  });

  it('are never asked for a member my-info says is suspended (the cookie still said APPROVED)', async () => {
    prefetchScreen('likes');
    tell(status('SUSPENDED'));
    await settle();
    expect(asked).toEqual([]);
  });

  it('are not asked without a profile either', async () => {
    prefetchScreen('matches');
    tell(null);
    await settle();
    expect(asked).toEqual([]);
  });
});
