// End to end, a second look at a suspension: a member suspended by one reviewer signs in again,
// reads on /profile what was decided and on which rule, and sends an appeal from there; the
// suspending reviewer's console has no appeal to answer (the server refuses them too); a second
// reviewer finds it in the console's Appeals tab with how long it waited, and reinstates her; she
// is told through LINE in her language and finds her account back. axe on each new screen at
// 390×844 and 320 px.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, launchBrowser, openAs, checkScreen, SCREENSHOT_DIR, ensureScreenshotDir } from './harness.mjs';
import { approveAll, bearer, pushesTo, registerByApi, waitFor } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';
const NARROW = { width: 320, height: 640 };
const PHONE = { width: 390, height: 844 };

async function both(page, what) {
  await checkScreen(page, `${what} (390×844)`);
  await page.setViewportSize(NARROW);
  await checkScreen(page, `${what} (320×640)`);
  await page.setViewportSize(PHONE);
}

/** A reviewer in the browser (on a laptop), put on the list through /dev. */
async function reviewerInBrowser(browser, server, displayName) {
  const user = await server.mockUser({ displayName });
  const session = await openAs(browser, server, user.userId, { laptop: true });
  await session.page.goto(`${session.base}/dev`);
  await session.page.getByTestId('dev-user-id').waitFor();
  await session.page.getByTestId('dev-reviewer-toggle').click();
  await session.page.getByTestId('dev-reviewer').filter({ hasText: 'Yes' }).waitFor();
  await checkScreen(session.page, '/dev, a reviewer');
  return { user, auth: await bearer(server, user.userId), ...session };
}

describe('A second look at a suspension', () => {
  const server = new KizunaServer();
  let browser;

  before(async () => {
    await server.start();
    browser = await launchBrowser();
    if (SCREENSHOTS) ensureScreenshotDir();
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  it('a suspended member appeals from /profile; a second reviewer reinstates her in the console; she is told', async () => {
    const ana = await reviewerInBrowser(browser, server, 'Ana Reviewer');
    const bo = await reviewerInBrowser(browser, server, 'Bo Reviewer');
    const mei = await registerByApi(server, { nickname: 'Mei', gender: 'FEMALE', matchGender: 'MALE', locale: 'ja' });
    const pending = await server.json('/api/review/queue', { headers: ana.auth });
    assert.equal(pending.body.items.length, 1, JSON.stringify(pending.body));
    const profileId = pending.body.items[0].profileId;
    assert.equal(await approveAll(server, ana.auth), 1);
    // Ana suspends her (the console's ordinary decision, through the API here: the report flow
    // has its own test).
    const view = await server.json(`/api/review/profiles/${profileId}`, { headers: ana.auth });
    const suspended = await server.json(`/api/review/profiles/${profileId}/decision`, { method: 'POST', headers: ana.auth, body: JSON.stringify({ action: 'SUSPEND', reasons: ['SCAM'], version: view.body.version }) });
    assert.equal(suspended.status, 200, JSON.stringify(suspended.body));

    // She opens the app again: signed out by the suspension, she signs in and lands on /profile.
    const member = await openAs(browser, server, mei.user.userId, { locale: 'ja-JP' });
    const { page } = member;
    await page.goto(`${member.base}/today`);
    await page.waitForURL(/\/profile$/);
    await page.locator('[data-testid="review-status"][data-status="SUSPENDED"]').waitFor();
    // The statement of reasons: what was decided, on which rule, and how to ask again.
    await page.locator('[data-testid="review-reasons"] li[data-reason="SCAM"]').waitFor();
    const card = page.locator('[data-testid="appeal-card"][data-status="NONE"]');
    await card.waitFor();
    assert.match(await page.getByTestId('appeal-statement').innerText(), /一度だけ/);
    await both(page, '/profile, suspended, may appeal');
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, 'profile-suspended-appeal.png'), fullPage: true });
    // An empty appeal is refused on the screen, and nothing is sent.
    await page.getByTestId('appeal-send').click();
    await page.getByTestId('appeal-problem').waitFor();
    await page.getByTestId('appeal-text').fill('Someone else used my phone that week. I never asked anyone for money.');
    const [sent] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/user/appeal'),
      page.getByTestId('appeal-send').click(),
    ]);
    assert.equal(sent.status(), 201);
    await page.locator('[data-testid="appeal-card"][data-status="PENDING"]').waitFor();
    assert.equal(await page.getByTestId('appeal-text').count(), 0, 'one appeal per suspension: the form is gone');
    await both(page, '/profile, appeal pending');
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, 'profile-appeal-pending.png'), fullPage: true });

    // Ana, who suspended her, has nothing to answer; the server refuses her anyway.
    await ana.page.goto(`${ana.base}/review?tab=appeals`);
    await ana.page.getByTestId('appeals-empty').waitFor();
    await checkScreen(ana.page, 'the console, no appeal');
    const { body: appeals } = await server.json('/api/review/appeals', { headers: bo.auth });
    assert.equal(appeals.items.length, 1);
    const refused = await server.json(`/api/review/appeals/${appeals.items[0].appealId}/decision`, { method: 'POST', headers: ana.auth, body: JSON.stringify({ outcome: 'UPHELD' }) });
    assert.equal(refused.status, 403);

    // Bo reads it in the Appeals tab: her words beside the suspension's reasons, how long it waited.
    await bo.page.goto(`${bo.base}/review`);
    await bo.page.getByRole('heading', { name: 'Review console' }).waitFor();
    await bo.page.getByTestId('tab-appeals').click();
    const item = bo.page.locator(`[data-testid="appeal-item"][data-appeal-id="${appeals.items[0].appealId}"]`);
    await item.waitFor();
    assert.equal(new URL(bo.page.url()).search, '?tab=appeals');
    assert.equal(await item.getByTestId('appeal-text').innerText(), 'Someone else used my phone that week. I never asked anyone for money.');
    assert.match(await item.getByTestId('appeal-waited').innerText(), /waiting/);
    assert.notEqual((await item.getByTestId('appeal-reasons').innerText()).trim(), '');
    await checkScreen(bo.page, 'the console, an appeal');
    if (SCREENSHOTS) await bo.page.screenshot({ path: join(SCREENSHOT_DIR, 'review-appeals.png'), fullPage: true });
    await item.getByLabel('Note to the member (optional)').fill('Thank you for explaining. Welcome back.');
    const [answered] = await Promise.all([
      bo.page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/decision')),
      item.getByTestId('appeal-reinstate').click(),
    ]);
    assert.equal(answered.status(), 200);
    await bo.page.getByTestId('appeals-empty').waitFor();

    // She is told in her language (Japanese), and her account is back.
    const pushed = await waitFor(async () => {
      const all = await pushesTo(server, mei.user.userId);
      return all.find((p) => p.messages[0].altText.includes('申し立ての結果'));
    }, 'the appeal push');
    assert.match(pushed.messages[0].altText, /アカウントを復元しました/);
    await page.goto(`${member.base}/profile`);
    await page.locator('[data-testid="appeal-card"][data-status="REINSTATED"]').waitFor();
    await both(page, '/profile, reinstated after an appeal');
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, 'profile-appeal-reinstated.png'), fullPage: true });
    const me = await server.json('/api/user/my-info', { headers: await bearer(server, mei.user.userId) });
    assert.equal(me.body.reviewStatus, 'APPROVED');
    assert.equal(me.body.appeal.status, 'REINSTATED');
  });
});
