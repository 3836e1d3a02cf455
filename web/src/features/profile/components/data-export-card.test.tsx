import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRoot } from 'react-dom/client';
import { act } from 'react';
import { completeLocale, setLocale } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { setLogShipper } from '@/lib/logger';
import { dataExportApi } from '@/features/profile/api/profile-api';
import { DataExportCard } from '@/features/profile/components/data-export-card';

async function render() {
  const host = document.createElement('div');
  document.body.append(host);
  await act(async () => createRoot(host).render(<DataExportCard />));
  const q = (id: string) => host.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  return { host, q };
}

const asked = {
  status: 'PREPARING' as const,
  requestedAt: 1_764_000_000,
  downloadUrl: '/api/data-export/abc',
};

describe('the data export card', () => {
  beforeAll(async () => {
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    await setLocale('en');
    await completeLocale();
    setLogShipper(() => {});
  });
  afterEach(() => {
    document.body.innerHTML = '';
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('asks, says it is preparing, and offers the link once the copy is ready', async () => {
    vi.useFakeTimers();
    vi.spyOn(dataExportApi, 'request').mockResolvedValue(asked);
    const status = vi.spyOn(dataExportApi, 'status')
      .mockResolvedValueOnce({ status: 'PREPARING', requestedAt: asked.requestedAt })
      .mockResolvedValue({ status: 'READY', requestedAt: asked.requestedAt, readyAt: 1_764_000_002, sizeBytes: 2_500_000 });
    const { q } = await render();
    await act(async () => q('data-export')!.click());
    expect(q('data-export-preparing')).not.toBeNull();
    await act(async () => vi.advanceTimersByTimeAsync(1000));
    expect(q('data-export-download')).toBeNull();
    await act(async () => vi.advanceTimersByTimeAsync(1000));
    expect(status).toHaveBeenCalledTimes(2);
    const link = q('data-export-download') as HTMLAnchorElement;
    expect(link.getAttribute('href')).toBe('/api/data-export/abc');
    expect(link.hasAttribute('download')).toBe(true);
    expect(q('data-export-ready')!.textContent).toMatch(/^2\.5 MB · Your copy is ready/);
  });

  it('says so when the day’s three copies are used, and lets the member try again', async () => {
    vi.spyOn(dataExportApi, 'request').mockRejectedValue(new ApiError('E007', 'at most 3 copies', 429));
    const { q, host } = await render();
    await act(async () => q('data-export')!.click());
    expect(host.querySelector('[role="alert"]')!.textContent).toBe('You have asked for 3 copies today. Please try again tomorrow.');
    expect(q('data-export')).not.toBeNull();
  });
});
