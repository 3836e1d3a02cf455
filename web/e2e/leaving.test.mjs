// End to end: a member who deletes their account while matched. The other member's open
// chat says it ended, live; the leaver's photo URLs answer E003 to them; the leaver is gone from
// their matches. A member who was blocked, leaves and registers again is still never introduced to
// the person who blocked them (the next day's list, through the mock platform's /__mock/clock).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KizunaServer, launchBrowser, checkScreen } from './harness.mjs';
import { approveAll, fetchFromPage, memberByApi } from './members.mjs';
import { completeForm } from './register-flow.mjs';

describe('Leaving while matched', () => {
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

  it('the other member’s open chat shows the ended notice, and the leaver’s photos answer E003', async () => {
    const mei = await memberByApi(browser, server, { nickname: 'Mei', name: 'Lin Mei', gender: 'FEMALE', matchGender: 'MALE' });
    const kai = await memberByApi(browser, server, { nickname: 'Kai', name: 'Chen Kai', gender: 'MALE', matchGender: 'FEMALE' });
    assert.equal(await approveAll(server), 2);
    const card = (m, name) => m.page.getByTestId('introduction').filter({ has: m.page.getByTestId('member-nickname').filter({ hasText: name }) });
    for (const m of [mei, kai]) {
      await m.page.goto(`${m.base}/today`);
      await m.page.getByTestId('introductions').waitFor();
    }
    await checkScreen(mei.page, '/today');
    await card(mei, 'Kai').getByTestId('like').click();
    await card(mei, 'Kai').getByTestId('liked').waitFor();
    await card(kai, 'Mei').getByTestId('like').click();
    await kai.page.getByRole('heading', { name: "It's a match!" }).waitFor();
    await checkScreen(kai.page, "It's a match");

    // Kai notes Mei's photo URLs from her profile, then keeps their chat open.
    await kai.page.goto(`${kai.base}/matches`);
    const meiMatch = kai.page.getByTestId('match').filter({ hasText: 'Mei' });
    const matchId = await meiMatch.getAttribute('data-match-id');
    await checkScreen(kai.page, '/matches');
    await meiMatch.getByTestId('view-profile').click();
    await kai.page.getByTestId('member-profile').waitFor();
    await checkScreen(kai.page, 'a match’s profile');
    const srcs = await kai.page.locator('[data-testid="member-profile"] img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('src')));
    const photos = srcs.map((s) => `/api/file/fetch/${s.split('/api/file/fetch/')[1]}`);
    assert.ok(photos.length >= 1);
    for (const u of photos) assert.equal((await fetchFromPage(kai.page, u)).status, 200, u);
    await kai.page.goto(`${kai.base}/chat?match=${matchId}`);
    await kai.page.getByTestId('chat-form').waitFor();
    await checkScreen(kai.page, 'a chat');

    // Mei deletes her account from /settings.
    await mei.page.goto(`${mei.base}/settings`);
    await mei.page.getByTestId('delete-account').waitFor();
    await checkScreen(mei.page, '/settings');
    await mei.page.getByTestId('delete-account').click();
    await mei.page.getByTestId('delete-account-confirm').click();
    await mei.page.waitForURL(/\/signed-out\?left=1$/);
    await mei.page.getByTestId('sign-in-again').waitFor();
    await checkScreen(mei.page, 'signed out, having left');

    // Kai's open chat is told at once; Mei's photos and her match are gone for him.
    await kai.page.getByTestId('chat-ended').waitFor();
    assert.equal(await kai.page.getByTestId('chat-form').count(), 0);
    for (const u of photos) assert.deepEqual(await fetchFromPage(kai.page, u), { status: 404, code: 'E003' }, u);
    await kai.page.goto(`${kai.base}/matches`);
    await kai.page.getByTestId('matches-empty').waitFor();
    await mei.context.close();
    await kai.context.close();
  });

  it('a blocked member who leaves and registers again is still never introduced to the one who blocked them', async () => {
    const ren = await memberByApi(browser, server, { nickname: 'Ren', name: 'Wu Ren', gender: 'FEMALE', matchGender: 'MALE' });
    const jun = await memberByApi(browser, server, { nickname: 'Jun', name: 'Lee Jun', gender: 'MALE', matchGender: 'FEMALE' });
    await approveAll(server);
    const card = (name) => ren.page.getByTestId('introduction').filter({ has: ren.page.getByTestId('member-nickname').filter({ hasText: name }) });

    // Ren blocks Jun from his profile.
    await ren.page.goto(`${ren.base}/today`);
    await card('Jun').getByTestId('view-profile').click();
    await ren.page.getByTestId('member-profile').waitFor();
    await ren.page.getByTestId('block').click();
    await ren.page.getByTestId('block-confirm').waitFor();
    await checkScreen(ren.page, 'the block dialog');
    await ren.page.getByTestId('block-confirm').click();
    await ren.page.waitForURL(/\/(today|matches)$/);

    // Jun deletes his account, signs in again and registers afresh; a reviewer approves him.
    await jun.page.goto(`${jun.base}/settings`);
    await jun.page.getByTestId('delete-account').click();
    await jun.page.getByTestId('delete-account-confirm').click();
    await jun.page.waitForURL(/\/signed-out\?left=1$/);
    await jun.page.getByTestId('sign-in-again').click();
    await jun.page.waitForURL(/\/register$/);
    await completeForm(jun.page, { verify: 'EMPLOYEE_ID', basics: { nickname: 'Jun', name: 'Lee Jun', gender: 'MALE', matchGender: 'FEMALE' } });
    await jun.page.getByTestId('submit').click();
    await jun.page.waitForURL(/\/profile$/, { timeout: 30_000 });
    await jun.page.locator('[data-testid="review-status"][data-status="PENDING"]').waitFor();
    await checkScreen(jun.page, '/profile, PENDING again');
    // Tom joins meanwhile: new to Ren, as the new Jun is.
    const tom = await memberByApi(browser, server, { nickname: 'Tom', name: 'Lin Tom', gender: 'MALE', matchGender: 'FEMALE' });
    assert.equal(await approveAll(server), 2);

    // The next day's list: Tom, never Jun.
    const moved = await server.json('/__mock/clock', { method: 'POST', body: JSON.stringify({ advanceSecs: 24 * 3600 }) });
    assert.equal(moved.status, 200);
    await ren.page.goto(`${ren.base}/today`);
    await card('Tom').waitFor();
    assert.equal(await card('Jun').count(), 0);
    // And Jun's list of that day does not have Ren.
    await jun.page.goto(`${jun.base}/today`);
    await jun.page.getByTestId('introductions').or(jun.page.getByTestId('today-empty')).first().waitFor();
    assert.equal(await jun.page.getByTestId('introduction').filter({ hasText: 'Ren' }).count(), 0);
    for (const m of [ren, jun, tom]) await m.context.close();
  });
});
