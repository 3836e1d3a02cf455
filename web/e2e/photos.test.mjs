// End to end: a member suspended by a reviewer leaves and comes back with a new LINE account and
// the same photos; the reviewer opening the new profile sees them flagged as a suspended member's
// who has left (axe clean on a laptop, at 390 px and at 320 px).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, ensureScreenshotDir, launchBrowser, openAs, checkScreen } from './harness.mjs';
import { approveAll, bearer, registerByApi } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';

describe('Reused photos', () => {
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

  it('a returning member with a suspended member\'s photos is flagged to the reviewer', async () => {
    const user = await server.mockUser({ displayName: 'Rei Reviewer' });
    const session = await openAs(browser, server, user.userId, { laptop: true });
    await session.page.goto(`${session.base}/dev`);
    await session.page.getByTestId('dev-reviewer-toggle').click();
    await session.page.getByTestId('dev-reviewer').filter({ hasText: 'Yes' }).waitFor();
    await checkScreen(session.page, '/dev, a reviewer');
    const auth = await bearer(server, user.userId);

    const kai = await registerByApi(server, { nickname: 'Kai', gender: 'MALE', matchGender: 'FEMALE' });
    await approveAll(server, auth);
    const queue = await server.json('/api/review/queue', { headers: auth });
    assert.equal(queue.body.items.length, 0);
    const codes = (await server.json('/api/catalogue/codes')).body;
    const kaiId = (await server.json('/api/user/my-info', { headers: kai.auth })).body.profile?.id;
    const findId = async () => {
      if (kaiId) return kaiId;
      // The profile id from the reviewer's side: the only approved member.
      for (let id = 1; id < 20; id++) {
        const v = await server.json(`/api/review/profiles/${id}`, { headers: auth });
        if (v.status === 200 && v.body.profile.nickname === 'Kai') return id;
      }
      throw new Error('Kai not found');
    };
    const id = await findId();
    const view = await server.json(`/api/review/profiles/${id}`, { headers: auth });
    const suspended = await server.json(`/api/review/profiles/${id}/decision`, { method: 'POST', headers: auth, body: JSON.stringify({ action: 'SUSPEND', reasons: [codes.suspend[0].code], version: view.body.version }) });
    assert.equal(suspended.status, 200, JSON.stringify(suspended.body));
    // The suspension ended his sessions: he signs in again (he reaches only his own account) and leaves.
    const again = await bearer(server, kai.user.userId);
    const left = await fetch(`${server.base}/api/user/account`, { method: 'DELETE', headers: { ...again, 'Content-Type': 'application/json' }, body: JSON.stringify({ lineAccessToken: null }) });
    assert.equal(left.status, 204);

    // Back with a new LINE account and the same photos.
    await registerByApi(server, { nickname: 'Kaito', gender: 'MALE', matchGender: 'FEMALE' });
    const items = (await server.json('/api/review/queue', { headers: auth })).body.items;
    assert.equal(items.length, 1);
    const backId = items[0].profileId;

    const { page } = session;
    await page.goto(`${session.base}/review?profile=${backId}`);
    await page.locator(`[data-testid="review-detail"][data-profile-id="${backId}"]`).waitFor();
    const flagged = page.getByTestId('resembling');
    await flagged.waitFor();
    const rows = flagged.getByTestId('resembling-photo');
    assert.ok((await rows.count()) >= 2, 'both photos are flagged');
    for (const status of await flagged.getByTestId('resembling-status').allInnerTexts()) {
      assert.equal(status, 'A suspended member who has left');
    }
    await checkScreen(page, 'a returning member flagged in the review console');
    if (SCREENSHOTS) await flagged.screenshot({ path: join(SCREENSHOT_DIR, 'console-reused-photos.png') });
    for (const width of [390, 320]) {
      await page.setViewportSize({ width, height: 844 });
      await flagged.waitFor();
      await checkScreen(page, `the flag at ${width} px`);
      if (SCREENSHOTS && width === 320) await flagged.screenshot({ path: join(SCREENSHOT_DIR, 'console-reused-photos-320.png') });
    }
  });
});
