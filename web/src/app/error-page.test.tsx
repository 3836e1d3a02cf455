import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRoot } from 'react-dom/client';
import { act } from 'react';
import { ErrorPage, isCrawler } from '@/app/error-page';
import { setLocale } from '@/lib/i18n';
import { setLogShipper } from '@/lib/logger';

async function renderPage(status: number, message?: string) {
  const host = document.createElement('div');
  document.body.append(host);
  await act(async () => createRoot(host).render(<ErrorPage status={status} message={message} />));
  return host;
}

describe('error pages', () => {
  beforeAll(async () => {
    await setLocale('en');
    setLogShipper(() => {});
  });
  afterEach(() => {
    document.body.innerHTML = '';
    vi.restoreAllMocks();
  });

  it('404 says Page Not Found with the path message', async () => {
    const host = await renderPage(404, 'Page not found: /x');
    expect(host.querySelector('h1')?.textContent).toBe('Page Not Found');
    expect(host.textContent).toContain('Page not found: /x');
  });

  it('anything else says Internal Server Error', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const host = await renderPage(500);
    expect(host.querySelector('h1')?.textContent).toBe('Internal Server Error');
  });

  it('crawlers and link-preview bots get no page, the error is logged', async () => {
    expect(isCrawler('Mozilla/5.0 (compatible; Googlebot/2.1)')).toBe(true);
    expect(isCrawler('facebookexternalhit/1.1')).toBe(true);
    expect(isCrawler('Mozilla/5.0 (iPhone) Line/13.10.0')).toBe(false);
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue('Slackbot-LinkExpanding 1.0');
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const host = await renderPage(404, 'Page not found: /y');
    expect(host.innerHTML).toBe('');
    expect(error).toHaveBeenCalled();
  });
});
