// Every screen of the app runs under the server's Content-Security-Policy without a
// single violation — a new member's register steps (geolocation, photo previews, the work e-mail
// code), the friend page, the pending profile, help, /dev, a 404; approved members' today, member
// profile, likes, matches, chat and the edit of their profile; the reviewer's console; signing
// out. A violation is caught twice over: the page's `securitypolicyviolation` events (an init
// script reports each one to the test) and Chromium's "Refused to …" console messages.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KizunaServer, launchBrowser, openAs, checkScreenOnce } from './harness.mjs';
import { approveAll, bearer, registerByApi } from './members.mjs';
import { addPhotos, fillAbout, fillBasics, fillConditions, fillLifestyle, fillLocation, fillTags, fillWork, next, STEP_IDS, waitForStep, workEmail } from './register-flow.mjs';

/** Every CSP violation in `session`'s browser context, and every page it loaded without the
 *  policy (so that a server that stopped sending it cannot pass for a clean run). */
async function watchCsp(session) {
  const seen = { violations: [], pages: [] };
  await session.context.exposeBinding('__reportCspViolation', ({ page }, text) => seen.violations.push(`${page.url()}: ${text}`));
  await session.context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const where = e.sourceFile ? ` at ${e.sourceFile}:${e.lineNumber}` : '';
      window.__reportCspViolation(`${e.effectiveDirective} refused ${e.blockedURI || 'an inline resource'}${where} ${e.sample}`);
    });
  });
  session.page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) seen.violations.push(`console: ${msg.text()}`);
  });
  session.page.on('response', async (res) => {
    if (res.request().resourceType() !== 'document') return;
    const policy = (await res.allHeaders())['content-security-policy'] ?? '';
    seen.pages.push({ url: res.url(), policy });
  });
  return seen;
}

/** The run so far was clean, and every page it loaded carried the web app's policy. */
function assertClean(seen, what) {
  assert.deepEqual(seen.violations, [], `${what}: CSP violations`);
  assert.ok(seen.pages.length > 0, `${what}: no page loaded`);
  for (const { url, policy } of seen.pages) {
    assert.match(policy, /script-src 'self' 'wasm-unsafe-eval'/, `${what}: ${url} has the app's policy`);
    assert.match(policy, /frame-ancestors 'none'/, `${what}: ${url}`);
    assert.doesNotMatch(policy, /unsafe-inline/, `${what}: ${url}`);
  }
}

/** Lets late requests (lazy chunks, images, the wasm module) land before the verdict; the screen
 *  is checked by axe too (once a screen: the injected checker is no page script the policy sees). */
async function settle(page) {
  await page.waitForLoadState('networkidle');
  await checkScreenOnce(page, page.url());
}

describe('every screen under the Content-Security-Policy', () => {
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

  it('a new member: the friend page, every register step, the pending profile, help, /dev and a 404', async () => {
    const stranger = await server.mockUser({ displayName: 'Not Yet Friend', friend: false });
    const outsider = await openAs(browser, server, stranger.userId);
    const outsiderSeen = await watchCsp(outsider);
    await outsider.page.goto(`${outsider.base}/`);
    await outsider.page.waitForURL(/\/friend$/);
    await outsider.page.getByTestId('add-friend').waitFor();
    await settle(outsider.page);
    assertClean(outsiderSeen, 'friend page');
    await outsider.context.close();

    const user = await server.mockUser({ displayName: 'Csp Newcomer' });
    const session = await openAs(browser, server, user.userId);
    await session.context.grantPermissions(['geolocation'], { origin: session.base });
    await session.context.setGeolocation({ latitude: 25.0412, longitude: 121.5321 });
    const seen = await watchCsp(session);
    const { page } = session;
    await page.goto(`${session.base}/`);
    await page.waitForURL(/\/register$/);
    const email = workEmail();
    const fillers = {
      basics: (p) => fillBasics(p),
      work: (p) => fillWork(p, 'COMPANY_EMAIL', { email }),
      lifestyle: fillLifestyle,
      tags: fillTags,
      about: fillAbout,
      photos: (p) => addPhotos(p, 2),
      conditions: fillConditions,
      location: async (p) => {
        // The location step asks for the position: Permissions-Policy allows it to the app.
        await p.getByRole('button', { name: 'Use my current location' }).click();
        await p.locator('.notice-ok').waitFor();
        await fillLocation(p);
      },
    };
    for (const step of STEP_IDS.slice(0, -1)) {
      await waitForStep(page, step);
      await fillers[step](page);
      await settle(page);
      await next(page);
    }
    await waitForStep(page, 'review');
    await settle(page);
    await page.getByTestId('submit').click();
    await page.waitForURL(/\/profile$/, { timeout: 30_000 });
    await page.getByTestId('review-status').waitFor();
    await page.locator('.photo-grid img').first().waitFor();
    await settle(page);
    assertClean(seen, 'registration');

    await page.goto(`${session.base}/help`);
    await page.locator('main h1, main h2').first().waitFor();
    await settle(page);
    await page.goto(`${session.base}/dev`);
    await page.getByTestId('dev-user-id').waitFor();
    await settle(page);
    await page.goto(`${session.base}/no-such-page`);
    await page.getByText(/not found/i).first().waitFor();
    await settle(page);
    assertClean(seen, 'help, /dev and a 404');
    await session.context.close();
  });

  it('approved members: today, a member profile, likes, matches, a chat, the profile, editing it and signing out', async () => {
    const mei = await registerByApi(server, { nickname: 'CspMei', gender: 'FEMALE', matchGender: 'MALE' });
    const kai = await registerByApi(server, { nickname: 'CspKai', gender: 'MALE', matchGender: 'FEMALE', photos: 3 });
    await approveAll(server);
    const auth = { mei: await bearer(server, mei.user.userId), kai: await bearer(server, kai.user.userId) };
    const idOf = async (who, nickname) => {
      const list = await server.json('/api/introductions', { headers: auth[who] });
      return list.body.introductions.find((i) => i.member.nickname === nickname)?.member.memberId;
    };
    const kaiId = await idOf('mei', 'CspKai');
    const meiId = await idOf('kai', 'CspMei');
    assert.ok(kaiId && meiId, 'each is in the other\u2019s list of today');
    const like = await server.json(`/api/introductions/${meiId}/like`, { method: 'POST', headers: auth.kai });
    assert.equal(like.status, 200, JSON.stringify(like.body));

    const session = await openAs(browser, server, mei.user.userId);
    const seen = await watchCsp(session);
    const { page } = session;
    await page.goto(`${session.base}/today`);
    await page.locator('img').first().waitFor();
    await settle(page);
    await page.goto(`${session.base}/member?id=${kaiId}`);
    await page.locator('img').first().waitFor();
    await settle(page);
    await page.goto(`${session.base}/likes`);
    await settle(page);
    // Mei likes back through the app's own button: a match.
    const matched = await server.json(`/api/introductions/${kaiId}/like`, { method: 'POST', headers: auth.mei });
    assert.equal(matched.status, 200, JSON.stringify(matched.body));
    assert.ok(matched.body.matchId, 'the like back makes a match');
    await page.goto(`${session.base}/matches`);
    await settle(page);
    await page.goto(`${session.base}/chat?match=${matched.body.matchId}`);
    await page.getByTestId('chat-input').fill('Hello from under the policy');
    await page.getByTestId('chat-send').click();
    await page.getByText('Hello from under the policy').first().waitFor();
    await settle(page);
    // Editing the approved profile: the register form, filled from it.
    await page.goto(`${session.base}/profile`);
    await page.getByTestId('edit-profile').click();
    await page.waitForURL(/\/register$/);
    await page.getByTestId('edit-notice').waitFor();
    await waitForStep(page, 'basics');
    await settle(page);
    await page.goto(`${session.base}/settings`);
    await page.getByTestId('sign-out-card').waitFor();
    await settle(page);
    await page.getByTestId('sign-out').click();
    await page.waitForURL(/\/signed-out$/);
    await settle(page);
    assertClean(seen, 'member screens');
    await session.context.close();
  });

  it('a reviewer: the review console on a laptop, a profile opened in it', async () => {
    await registerByApi(server, { nickname: 'CspPending', gender: 'FEMALE', matchGender: 'MALE' });
    const user = await server.mockUser({ displayName: 'Csp Reviewer' });
    await server.json('/__mock/reviewers', { method: 'POST', body: JSON.stringify({ userId: user.userId }) });
    const session = await openAs(browser, server, user.userId, { laptop: true });
    const seen = await watchCsp(session);
    const { page } = session;
    await page.goto(`${session.base}/review`);
    const item = page.getByTestId('queue-item').first();
    await item.waitFor();
    await item.click();
    await page.getByTestId('review-detail').waitFor();
    await page.locator('.review-photos img').first().waitFor();
    await settle(page);
    assertClean(seen, 'review console');
    await session.context.close();
  });
});
