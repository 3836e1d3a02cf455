// End to end: two members at one employer are never introduced while a member of
// another employer is; when both switch "never introduce me to people of my employer" off on
// /profile, their next lists introduce them. The console lists the members approved before
// employers were recorded, and a reviewer sets theirs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, launchBrowser, ensureScreenshotDir, openAs, SCREENSHOT_DIR, checkScreen } from './harness.mjs';
import { approveAll, bearer, memberByApi, registerByApi, reviewer } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';

describe('Hide me from colleagues', () => {
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

  it('colleagues are never introduced, another employer’s member is, and both switched off lets them meet', async () => {
    const mei = await memberByApi(browser, server, { nickname: 'Mei', name: 'Lin Mei', gender: 'FEMALE', matchGender: 'MALE' });
    const kai = await memberByApi(browser, server, { nickname: 'Kai', name: 'Chen Kai', gender: 'MALE', matchGender: 'FEMALE' });
    const bo = await memberByApi(browser, server, { nickname: 'Bo', name: 'Wang Bo', gender: 'MALE', matchGender: 'FEMALE' });
    // The reviewer records where each works: Mei and Kai at one employer, Bo at another.
    const employers = { Mei: 'tsmc', Kai: 'tsmc', Bo: 'mediatek' };
    assert.equal(await approveAll(server, undefined, (item) => employers[item.nickname]), 3);

    const card = (page, name) => page.getByTestId('introduction').filter({ hasText: name });
    await mei.page.goto(`${mei.base}/today`);
    await card(mei.page, 'Bo').waitFor();
    await checkScreen(mei.page, '/today');
    assert.equal(await card(mei.page, 'Kai').count(), 0, 'a colleague is not introduced');
    await kai.page.goto(`${kai.base}/today`);
    await kai.page.getByTestId('today-empty').waitFor();
    assert.equal(await card(kai.page, 'Mei').count(), 0);

    // The switch is on by default and says what it does; Mei turns it off.
    await mei.page.goto(`${mei.base}/settings`);
    const on = (page) => page.locator('[data-testid="hide-colleagues"][data-state="on"]');
    const off = (page) => page.locator('[data-testid="hide-colleagues"][data-state="off"]');
    await on(mei.page).waitFor();
    await checkScreen(mei.page, '/settings');
    assert.match(await mei.page.getByTestId('colleagues-card').innerText(), /never introduced and never see each other/);
    if (SCREENSHOTS) {
      const centre = () => mei.page.getByTestId('colleagues-card').evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await centre();
      await mei.page.screenshot({ path: join(SCREENSHOT_DIR, 'profile-colleagues.png') });
      await mei.page.setViewportSize({ width: 320, height: 700 });
      await centre();
      await mei.page.screenshot({ path: join(SCREENSHOT_DIR, 'profile-colleagues-320.png') });
      await mei.page.setViewportSize({ width: 390, height: 844 });
    }
    await mei.page.getByTestId('hide-colleagues').click();
    await off(mei.page).waitFor();

    // Kai still asks: tomorrow they are still apart.
    await server.json('/__mock/clock', { method: 'POST', body: JSON.stringify({ advanceSecs: 24 * 3600 }) });
    await mei.page.goto(`${mei.base}/today`);
    await mei.page.locator('[data-testid="today-empty"], [data-testid="introduction"]').first().waitFor();
    assert.equal(await card(mei.page, 'Kai').count(), 0, 'either one asking keeps them apart');

    // Kai turns it off too: their next lists introduce them to each other.
    await kai.page.goto(`${kai.base}/settings`);
    await on(kai.page).waitFor();
    await kai.page.getByTestId('hide-colleagues').click();
    await off(kai.page).waitFor();
    await server.json('/__mock/clock', { method: 'POST', body: JSON.stringify({ advanceSecs: 24 * 3600 }) });
    await mei.page.goto(`${mei.base}/today`);
    await card(mei.page, 'Kai').waitFor();
    await kai.page.goto(`${kai.base}/today`);
    await card(kai.page, 'Mei').waitFor();
    for (const m of [mei, kai, bo]) await m.context.close();
  });
  it('the console lists members approved without an employer on record, and a reviewer sets one', async () => {
    const ren = await registerByApi(server, { nickname: 'Ren', gender: 'MALE', matchGender: 'FEMALE' });
    const yui = await registerByApi(server, { nickname: 'Yui', gender: 'FEMALE', matchGender: 'MALE' });
    assert.equal(await approveAll(server), 2);
    // As members approved before review recorded employers are (the migration could not tell
    // theirs from an employee-ID photo): approved, no employer on record.
    assert.equal(server.sql("UPDATE profiles SET employer_id = NULL WHERE nickname IN ('Ren', 'Yui')"), 2);
    const renAuth = await bearer(server, ren.user.userId);
    assert.equal((await server.json('/api/user/colleagues', { headers: renAuth })).body.employerOnRecord, false);

    const rei = await server.mockUser({ displayName: 'Rei Reviewer' });
    await server.json('/__mock/reviewers', { method: 'POST', body: JSON.stringify({ userId: rei.userId }) });
    const console_ = await openAs(browser, server, rei.userId, { laptop: true });
    const page = console_.page;
    await page.goto(`${console_.base}/review`);
    const list = page.getByTestId('employers-missing');
    // (By the nickname's button: an employer's name in the choices may contain it.)
    const row = (name) => list.getByTestId('employer-missing').filter({ has: page.getByRole('button', { name, exact: true }) });
    await row('Yui').waitFor();
    await row('Ren').waitFor();
    await checkScreen(page, 'the review console, members without an employer');
    assert.equal(await list.getByTestId('employer-missing').count(), 2, 'only the two without one');
    const renId = await row('Ren').getAttribute('data-profile-id');
    const pick = row('Ren').locator('select');
    await page.waitForFunction((el) => el.options.length > 1, await pick.elementHandle());
    if (SCREENSHOTS) {
      await list.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'console-employers-missing.png') });
    }

    // Set where Ren works: he leaves the list, and it is on record.
    await pick.selectOption('mediatek');
    await row('Ren').getByRole('button', { name: 'Set' }).click();
    await row('Ren').waitFor({ state: 'detached' });
    assert.equal(await list.getByTestId('employer-missing').count(), 1);
    const auth = await reviewer(server, 'Second Reviewer');
    const missing = await server.json('/api/review/employers/missing', { headers: auth });
    assert.deepEqual(missing.body.members.map((m) => m.nickname), ['Yui']);
    const view = await server.json(`/api/review/profiles/${renId}`, { headers: auth });
    assert.equal(view.body.verification.employerOnRecord.id, 'mediatek');
    assert.equal((await server.json('/api/user/colleagues', { headers: renAuth })).body.employerOnRecord, true);
    assert.equal((await server.json('/api/user/colleagues', { headers: await bearer(server, yui.user.userId) })).body.employerOnRecord, false, 'Yui still waits');
    await console_.context.close();
  });
});
