import { beforeAll, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import { ErrorPage, isCrawler } from '@/app/error-page';
import { englishScreens } from '@/test/render';

describe('error pages', () => {
  beforeAll(englishScreens);

  it('404 says Page Not Found with the path message', () => {
    render(<ErrorPage status={404} message="Page not found: /x" />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Page Not Found');
    expect(screen.getByText('Page not found: /x')).toBeDefined();
  });

  it('anything else says Internal Server Error', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    render(<ErrorPage status={500} />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Internal Server Error');
  });

  it('crawlers and link-preview bots get no page, the error is logged', () => {
    expect(isCrawler('Mozilla/5.0 (compatible; Googlebot/2.1)')).toBe(true);
    expect(isCrawler('facebookexternalhit/1.1')).toBe(true);
    expect(isCrawler('Mozilla/5.0 (iPhone) Line/13.10.0')).toBe(false);
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue('Slackbot-LinkExpanding 1.0');
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { container } = render(<ErrorPage status={404} message="Page not found: /y" />);
    expect(container.innerHTML).toBe('');
    expect(error).toHaveBeenCalled();
  });
});
