import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiError } from '@/lib/api-client';
import { t } from '@/lib/i18n';
import { englishScreens, renderScreen } from '@/test/render';
import { dataExportApi } from '@/features/profile/api/profile-api';
import { DataExportCard } from '@/features/profile/components/data-export-card';

const asked = {
  status: 'PREPARING' as const,
  requestedAt: 1_764_000_000,
  downloadUrl: '/api/data-export/abc',
};

describe('the data export card', () => {
  beforeAll(englishScreens);
  afterEach(() => vi.useRealTimers());

  it('asks, says it is preparing, and offers the link once the copy is ready', async () => {
    vi.useFakeTimers();
    vi.spyOn(dataExportApi, 'request').mockResolvedValue(asked);
    const status = vi.spyOn(dataExportApi, 'status')
      .mockResolvedValueOnce({ status: 'PREPARING', requestedAt: asked.requestedAt })
      .mockResolvedValue({ status: 'READY', requestedAt: asked.requestedAt, readyAt: 1_764_000_002, sizeBytes: 2_500_000 });
    renderScreen(<DataExportCard />);
    // Fake timers drive the polling; a plain click (user-event waits on real timers).
    await act(async () => fireEvent.click(screen.getByTestId('data-export')));
    expect(screen.getByTestId('data-export-preparing')).toBeDefined();
    // Asked at once (still preparing), then every second until it is ready.
    await act(async () => vi.advanceTimersByTimeAsync(10));
    expect(status).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId('data-export-download')).toBeNull();
    await act(async () => vi.advanceTimersByTimeAsync(1000));
    expect(status).toHaveBeenCalledTimes(2);
    const link = screen.getByTestId<HTMLAnchorElement>('data-export-download');
    expect(link.getAttribute('href')).toBe('/api/data-export/abc');
    expect(link.hasAttribute('download')).toBe(true);
    expect(screen.getByTestId('data-export-ready').textContent).toMatch(/^2\.5 MB · Your copy is ready/);
  });

  it('gives up with a message when the copy is not ready within two minutes, and stops asking', async () => {
    vi.useFakeTimers();
    vi.spyOn(dataExportApi, 'request').mockResolvedValue(asked);
    const status = vi.spyOn(dataExportApi, 'status').mockResolvedValue({ status: 'PREPARING', requestedAt: asked.requestedAt });
    renderScreen(<DataExportCard />);
    await act(async () => fireEvent.click(screen.getByTestId('data-export')));
    await act(async () => vi.advanceTimersByTimeAsync(119_000));
    expect(screen.getByTestId('data-export-preparing')).toBeDefined();
    await act(async () => vi.advanceTimersByTimeAsync(2_000));
    expect(screen.getByRole('alert').textContent).toBe(t('profile.exportFailed'));
    const asks = status.mock.calls.length;
    expect(asks).toBeGreaterThan(100);
    await act(async () => vi.advanceTimersByTimeAsync(5_000));
    expect(status).toHaveBeenCalledTimes(asks);
    expect(screen.getByTestId('data-export')).toBeDefined();
  });

  it('says so when the day’s three copies are used, and lets the member try again', async () => {
    vi.spyOn(dataExportApi, 'request').mockRejectedValue(new ApiError('E007', 'at most 3 copies', 429));
    renderScreen(<DataExportCard />);
    await userEvent.click(screen.getByTestId('data-export'));
    expect((await screen.findByRole('alert')).textContent).toBe('You have asked for 3 copies today. Please try again tomorrow.');
    expect(screen.getByTestId('data-export')).toBeDefined();
  });
});
