import { beforeAll, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { englishScreens, renderScreen } from '@/test/render';
import { reviewTimeApi } from '@/features/profile/api/profile-api';
import { ReviewTimeLine, waitText } from '@/features/profile/components/review-time';

beforeAll(async () => {
  await englishScreens();
});

describe('waitText', () => {
  it('rounds up into minutes, hours or days', () => {
    expect(waitText(59, 'en')).toBe('1 minute');
    expect(waitText(25 * 60, 'en')).toBe('25 minutes');
    expect(waitText(2 * 3600 + 60, 'en')).toBe('3 hours');
    expect(waitText(47 * 3600, 'en')).toBe('47 hours');
    expect(waitText(3 * 86_400 + 1, 'en')).toBe('4 days');
    expect(waitText(0, 'en')).toBe('1 minute');
  });
});

describe('ReviewTimeLine', () => {
  it('tells the median and the 90th percentile from the queue', async () => {
    const get = vi.spyOn(reviewTimeApi, 'get').mockResolvedValue({ decisions: 40, windowDays: 7, minDecisions: 10, usual: { medianSecs: 5 * 3600, p90Secs: 30 * 3600 } });
    renderScreen(<ReviewTimeLine />);
    await waitFor(() => expect(screen.getByTestId('review-time').textContent).toBe('Over the last 7 days, half of the profiles were reviewed within 5 hours, and 9 in 10 within 30 hours.'));
    get.mockRestore();
  });

  it('says in words that there is too little data, with no number of hours', async () => {
    const get = vi.spyOn(reviewTimeApi, 'get').mockResolvedValue({ decisions: 3, windowDays: 7, minDecisions: 10, usual: null });
    renderScreen(<ReviewTimeLine />);
    await waitFor(() => expect(screen.getByTestId('review-time').dataset.figures).toBe('too-little'));
    expect(screen.getByTestId('review-time').textContent).toBe('Too few profiles were reviewed in the last 7 days for us to tell you a usual time honestly.');
    get.mockRestore();
  });

  it('shows nothing when the figures cannot be read', async () => {
    const get = vi.spyOn(reviewTimeApi, 'get').mockRejectedValue(new Error('down'));
    const { container } = renderScreen(<ReviewTimeLine />);
    await waitFor(() => expect(get).toHaveBeenCalled());
    expect(container.textContent).toBe('');
    get.mockRestore();
  });
});
