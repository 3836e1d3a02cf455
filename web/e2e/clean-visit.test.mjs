// A normal visit logs no console error and has no failed request — a new user's first
// visit, their registration, and their return visit — against the real server in mock mode.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KizunaServer, checkScreen, launchBrowser, openAs } from './harness.mjs';
import { completeForm, passWelcome } from './register-flow.mjs';

/** Everything that went wrong on a page: console errors, uncaught errors, failed requests and
 *  answers with an error status. */
function watch(page) {
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`failed: ${req.method()} ${req.url()} ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`status ${res.status()}: ${res.request().method()} ${res.url()}`);
  });
  return problems;
}

describe('a normal visit', () => {
  const server = new KizunaServer();
  let browser;

  before(async () => {
    await server.start();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  it('first visit, registration and return visit: no console error, no failed request', async () => {
    const user = await server.mockUser({ displayName: 'Clean Visit' });

    const first = await openAs(browser, server, user.userId);
    const problems = watch(first.page);
    await first.page.goto(`${first.base}/`);
    await first.page.waitForURL(/\/register$/);
    await passWelcome(first.page);
    await first.page.locator('#register-step-title[data-step="basics"]').waitFor();
    await first.page.waitForLoadState('networkidle');
    assert.deepEqual(problems, [], 'first visit');

    await completeForm(first.page, { photos: 1 });
    await first.page.getByTestId('submit').click();
    await first.page.waitForURL(/\/profile$/, { timeout: 30_000 });
    await first.page.getByTestId('review-status').waitFor();
    await first.page.waitForLoadState('networkidle');
    assert.deepEqual(problems, [], 'registration');
    await first.context.close();

    const back = await openAs(browser, server, user.userId);
    const problemsBack = watch(back.page);
    await back.page.goto(`${back.base}/`);
    await back.page.waitForURL(/\/profile$/);
    await back.page.getByTestId('review-status').waitFor();
    await back.page.locator('.photo-grid img').first().waitFor();
    await back.page.waitForLoadState('networkidle');
    assert.deepEqual(problemsBack, [], 'return visit');
    await checkScreen(back.page, '/profile on a return visit');
    await back.context.close();
  });
});
