// Sessions that end and leaving: a member signs out on one device, the other device
// stays signed in; signing out everywhere ends the other device's session too; signing in again is
// one tap. A member deletes their account after a confirmation: their sessions end, their photo
// answers E003, and signing in again starts a new registration.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { KizunaServer, launchBrowser, openAs, ensureScreenshotDir, SCREENSHOT_DIR, checkScreenOnce, checkScreen } from './harness.mjs';
import { registerByApi } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';

/** The session token a page holds (its cookie). */
async function tokenOf(context) {
  const cookies = await context.cookies();
  return cookies.find((c) => c.name === 'kizuna_token')?.value ?? null;
}

/** What my-info answers to a token, asked outside any page. */
async function myInfoStatus(server, token) {
  const r = await server.json('/api/user/my-info', { headers: { Authorization: `Bearer ${token}` } });
  return { status: r.status, code: r.body?.code ?? null };
}

async function onProfile(browser, server, userId) {
  const session = await openAs(browser, server, userId);
  await session.page.goto(`${session.base}/profile`);
  await session.page.getByTestId('review-status').waitFor();
  await checkScreenOnce(session.page, '/profile');
  await session.page.getByTestId('open-settings').click();
  await session.page.getByTestId('sign-out-card').waitFor();
  await checkScreenOnce(session.page, '/settings');
  const token = await tokenOf(session.context);
  assert.ok(token, 'signed in');
  return { ...session, token };
}

describe('Signing out and leaving', () => {
  const server = new KizunaServer();
  let browser;
  let user;

  before(async () => {
    await server.start();
    browser = await launchBrowser();
    if (SCREENSHOTS) ensureScreenshotDir();
    ({ user } = await registerByApi(server, { nickname: 'Mei', name: 'Lin Mei' }));
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  it('signing out ends this device only, and signing in again is one tap', async () => {
    const phone = await onProfile(browser, server, user.userId);
    const laptop = await onProfile(browser, server, user.userId);
    assert.notEqual(phone.token, laptop.token);

    await phone.page.getByTestId('sign-out').click();
    await phone.page.waitForURL(/\/signed-out$/);
    await phone.page.getByTestId('sign-in-again').waitFor();
    await checkScreen(phone.page, 'signed out');
    if (SCREENSHOTS) await phone.page.screenshot({ path: join(SCREENSHOT_DIR, 'signed-out.png') });
    assert.equal(await tokenOf(phone.context), null, 'the token is gone from the device');
    assert.deepEqual(await myInfoStatus(server, phone.token), { status: 401, code: 'E001A' });
    assert.equal((await myInfoStatus(server, laptop.token)).status, 200, 'the other device stays signed in');
    // Staying on the page signs nobody in.
    await phone.page.reload();
    await phone.page.getByTestId('sign-in-again').waitFor();
    assert.equal(await tokenOf(phone.context), null);

    await phone.page.getByTestId('sign-in-again').click();
    await phone.page.waitForURL(/\/profile$/);
    await phone.page.getByTestId('review-status').waitFor();
    const fresh = await tokenOf(phone.context);
    assert.ok(fresh && fresh !== phone.token, 'a new session');
    assert.equal((await myInfoStatus(server, fresh)).status, 200);
    await phone.context.close();
    await laptop.context.close();
  });

  it('signing out everywhere ends the other device too, after a confirmation', async () => {
    const phone = await onProfile(browser, server, user.userId);
    const laptop = await onProfile(browser, server, user.userId);

    await phone.page.getByTestId('sign-out-everywhere').click();
    const confirm = phone.page.getByTestId('sign-out-everywhere-confirm');
    await confirm.waitFor();
    assert.match(await phone.page.getByTestId('sign-out-card').innerText(), /every phone and browser/);
    if (SCREENSHOTS) await phone.page.screenshot({ path: join(SCREENSHOT_DIR, 'sign-out-everywhere.png'), fullPage: true });
    await confirm.click();
    await phone.page.waitForURL(/\/signed-out$/);
    assert.deepEqual(await myInfoStatus(server, phone.token), { status: 401, code: 'E001A' });
    assert.deepEqual(await myInfoStatus(server, laptop.token), { status: 401, code: 'E001A' });
    await phone.context.close();
    await laptop.context.close();
  });

  it('downloading my data: the zip arrives, unzips, and holds my profile and photos', async () => {
    const phone = await onProfile(browser, server, user.userId);
    await phone.page.getByTestId('data-export').click();
    const link = phone.page.getByTestId('data-export-download');
    await link.waitFor({ timeout: 15_000 });
    if (SCREENSHOTS) await phone.page.getByTestId('data-export-card').screenshot({ path: join(SCREENSHOT_DIR, 'data-export.png') });
    const [download] = await Promise.all([phone.page.waitForEvent('download'), link.click()]);
    assert.match(download.suggestedFilename(), /^kizuna-data-\d{4}-\d{2}-\d{2}\.zip$/);
    const path = join(mkdtempSync(join(tmpdir(), 'kizuna-export-')), download.suggestedFilename());
    await download.saveAs(path);
    // Python's zipfile reads it as any unzip tool would.
    const listing = JSON.parse(execFileSync('python3', ['-c', `
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
data = json.loads(z.read('data.json'))
print(json.dumps({'names': z.namelist(), 'nickname': data['profile']['asSubmitted']['nickname'], 'line': data['account']['lineUserId']}))
`, path]).toString());
    assert.equal(listing.nickname, 'Mei');
    assert.equal(listing.line, user.userId);
    assert.equal(listing.names.filter((n) => n.startsWith('files/')).length >= 2, true, listing.names.join(','));
    // The link needs no session, as when LINE hands the download to another browser.
    const href = await link.getAttribute('href');
    const r = await fetch(`${server.base}${href}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/zip');
    await phone.page.setViewportSize({ width: 320, height: 700 });
    if (SCREENSHOTS) await phone.page.getByTestId('data-export-card').screenshot({ path: join(SCREENSHOT_DIR, 'data-export-320.png') });
    await phone.context.close();
  });

  it('deleting the account ends everything, and a new login starts a new registration', async () => {
    const phone = await onProfile(browser, server, user.userId);
    const info = await server.json('/api/user/my-info', { headers: { Authorization: `Bearer ${phone.token}` } });
    const photo = info.body.profile.photoNameList[0];
    assert.ok(photo);

    await phone.page.getByTestId('delete-account').click();
    const confirm = phone.page.getByTestId('delete-account-confirm');
    await confirm.waitFor();
    assert.match(await phone.page.getByTestId('delete-account-card').innerText(), /cannot be undone/);
    if (SCREENSHOTS) await phone.page.screenshot({ path: join(SCREENSHOT_DIR, 'delete-account.png'), fullPage: true });
    await confirm.click();
    await phone.page.waitForURL(/\/signed-out\?left=1$/);
    await phone.page.getByTestId('account-deleted').waitFor();
    assert.deepEqual(await myInfoStatus(server, phone.token), { status: 401, code: 'E001A' });

    // Signing in again: a new user, a new registration; the old photo is gone for everyone.
    await phone.page.getByTestId('sign-in-again').click();
    await phone.page.waitForURL(/\/register$/);
    // A new user row: signing in (as the form's uploads do) gives a new session.
    const idToken = await server.idToken(user.userId);
    const login = await server.json('/api/user/login', { method: 'POST', headers: { 'X-Line-Id-Token': idToken }, body: JSON.stringify({ account: user.userId, password: user.userId }) });
    assert.equal(login.status, 200);
    const fresh = login.body.token;
    const r = await server.json(`/api/file/fetch/${photo}`, { headers: { Authorization: `Bearer ${fresh}` } });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'E003');
    const review = await server.reviewStatus(user.userId);
    assert.equal(review.status, 204, 'no profile any more');
    await phone.context.close();
  });
});
