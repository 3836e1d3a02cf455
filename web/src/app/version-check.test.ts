import { describe, expect, it, vi } from 'vitest';
import { checkForNewBuild } from '@/app/version-check';

describe('new build detection', () => {
  it('compares the polled build manifest with the running build', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => {});
    const same = vi.fn(async (_url: string) => new Response(JSON.stringify({ id: __BUILD_ID__ })));
    await expect(checkForNewBuild(same as unknown as typeof fetch)).resolves.toBe(false);
    expect(String(same.mock.calls[0]![0])).toMatch(/^\/builds\/latest\.json\?t=/);
    const other = vi.fn(async () => new Response(JSON.stringify({ id: 'another-build' })));
    await expect(checkForNewBuild(other as unknown as typeof fetch)).resolves.toBe(true);
    const down = vi.fn(async () => {
      throw new TypeError('offline');
    });
    await expect(checkForNewBuild(down as unknown as typeof fetch)).resolves.toBe(false);
  });
});
