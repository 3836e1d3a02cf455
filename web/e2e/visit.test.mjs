// Issue 24 end to end: one login per opening of the app. Approved members registered through the
// API (the register form has its own tests), in Chromium at 390×844.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KizunaServer, launchBrowser, openAs } from './harness.mjs';
import { approveAll, registerByApi } from './members.mjs';

/** Counts the page's API requests by method and path (`POST /api/user/login`). */
function countRequests(page) {
  const counts = new Map();
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (!url.pathname.startsWith('/api/')) return;
    const key = `${req.method()} ${url.pathname.replace(/\/U[0-9a-f]{32}$/, '/{userId}')}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  return {
    of: (key) => counts.get(key) ?? 0,
    reset: () => counts.clear(),
    all: () => Object.fromEntries(counts),
  };
}

/** Records whether a spinner was put on screen since the last `reset` (a MutationObserver in the
 *  page, so that one shown for a frame is caught too). */
async function watchSpinners(context) {
  await context.addInitScript(() => {
    window.__spinnerShown = false;
    new MutationObserver(() => {
      if (document.querySelector('.spinner, [data-testid="loading-overlay"]')) window.__spinnerShown = true;
    }).observe(document, { childList: true, subtree: true });
  });
}

const TAB_CONTENT = {
  today: '[data-testid="introductions"], [data-testid="today-empty"]',
  likes: '[data-testid="likes-sent"], [data-testid="likes-received"], [data-testid="likes-empty"]',
  matches: '[data-testid="matches"], [data-testid="matches-empty"]',
  profile: '[data-testid="review-status"]',
};

describe('One login per opening, screens at once (issue 24)', () => {
  const server = new KizunaServer();
  let browser;
  let mei;

  before(async () => {
    await server.start();
    browser = await launchBrowser();
    mei = await registerByApi(server, { nickname: 'Mei', gender: 'FEMALE', matchGender: 'MALE' });
    await registerByApi(server, { nickname: 'Kai', gender: 'MALE', matchGender: 'FEMALE' });
    assert.equal(await approveAll(server), 2);
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  it('§1 ten tab switches log in 0 times after the first load, ask review-status and my-info at most when a screen shows it, and show seen data without a spinner', async () => {
    const { context, page, base } = await openAs(browser, server, mei.user.userId);
    await watchSpinners(context);
    const requests = countRequests(page);
    await page.goto(`${base}/today`);
    await page.locator(TAB_CONTENT.today).first().waitFor();
    assert.equal(requests.of('POST /api/user/login'), 1, JSON.stringify(requests.all()));
    requests.reset();
    const order = ['likes', 'matches', 'profile', 'today'];
    const seen = new Set(['today']);
    let profileVisits = 0;
    for (let i = 0; i < 10; i++) {
      const tab = order[i % order.length];
      await page.evaluate(() => (window.__spinnerShown = false));
      await page.locator(`[data-testid="bottom-nav"] a[data-tab="${tab}"]`).click();
      await page.waitForURL(new RegExp(`/${tab}$`));
      await page.locator(TAB_CONTENT[tab]).first().waitFor();
      if (tab === 'profile') profileVisits++;
      if (seen.has(tab)) assert.equal(await page.evaluate(() => window.__spinnerShown), false, `a spinner on the way back to /${tab} (switch ${i + 1})`);
      seen.add(tab);
    }
    assert.equal(requests.of('POST /api/user/login'), 0, JSON.stringify(requests.all()));
    assert.equal(requests.of('GET /api/user/review-status/{userId}'), 0, JSON.stringify(requests.all()));
    // The profile screen shows my-info and refreshes it behind what it shows; no other tab asks.
    assert.ok(requests.of('GET /api/user/my-info') <= profileVisits, JSON.stringify(requests.all()));

    // A new opening of the app (a reload, on the last tab) reuses the stored session: no login at all.
    requests.reset();
    await page.reload();
    await page.locator(TAB_CONTENT[order[9 % order.length]]).first().waitFor();
    assert.equal(requests.of('POST /api/user/login'), 0, JSON.stringify(requests.all()));
    assert.equal(requests.of('GET /api/user/my-info'), 1, JSON.stringify(requests.all()));
    await context.close();
  });

  it('§1 a stored session the server refuses (revoked) costs one login, and the screen shows', async () => {
    const { context, page, base } = await openAs(browser, server, mei.user.userId);
    await context.addCookies([{ name: 'kizuna_token', value: 'not-a-session', url: base }]);
    const requests = countRequests(page);
    await page.goto(`${base}/matches`);
    await page.locator(TAB_CONTENT.matches).first().waitFor();
    assert.equal(requests.of('POST /api/user/login'), 1, JSON.stringify(requests.all()));
    await context.close();
  });
});
