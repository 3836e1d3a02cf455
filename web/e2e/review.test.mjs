// End to end: members register (a work e-mail confirmed with the code from the mock
// outbox), a reviewer in a second browser context decides on a laptop, the member sees the decision
// and the mock LINE platform records the push; a rejected member edits and resubmits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, ensureScreenshotDir, launchBrowser, openAs, checkScreen, checkScreenOnce } from './harness.mjs';
import { readFileSync } from 'node:fs';
import { pushesTo, memberByApi, register, waitFor } from './members.mjs';
import { codeFromOutbox, fillBasics, fillWork, next, waitForStep, workEmail } from './register-flow.mjs';

/** The English catalogue the console shows: a label is expected as it is written there. */
const en = JSON.parse(readFileSync(new URL('../src/lib/i18n/locales/en.json', import.meta.url), 'utf8'));

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';

/** Picks a decision action the way a person does: the chip's label. */
async function chooseAction(page, name) {
  await page.locator('[data-testid="decision-form"] label.chip', { hasText: name }).click();
}

/** The queue entry of the newest PENDING profile: the member who submitted last waited least, so
 *  the queue (oldest first) has it last. */
async function openNewest(page) {
  if (!/\/review$/.test(page.url())) await page.goto(new URL('/review', page.url()).href);
  // The newest is read from the refreshed queue's answer, not from the list on screen, which may
  // still be the one from before the refresh.
  const [answer] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/api/review/queue' && r.ok()),
    page.getByRole('button', { name: 'Refresh' }).click(),
  ]);
  const { items } = await answer.json();
  const id = String(items.at(-1).profileId);
  await page.locator(`[data-testid="queue-item"][data-profile-id="${id}"]`).click();
  await page.locator(`[data-testid="review-detail"][data-profile-id="${id}"]`).waitFor();
  await checkScreenOnce(page, 'a profile in the review console');
  return id;
}

describe('Review', () => {
  const server = new KizunaServer();
  let browser;
  let reviewer; // { page, context, user }
  let approved; // the member of the first test

  before(async () => {
    await server.start();
    browser = await launchBrowser();
    if (SCREENSHOTS) ensureScreenshotDir();
    // The reviewer signs in like anybody and becomes one through /dev's switch (the mock's list).
    const user = await server.mockUser({ displayName: 'Rei Reviewer' });
    const session = await openAs(browser, server, user.userId, { laptop: true });
    await session.page.goto(`${session.base}/dev`);
    await session.page.getByTestId('dev-user-id').waitFor();
    await session.page.getByTestId('dev-reviewer-toggle').click();
    await session.page.getByTestId('dev-reviewer').filter({ hasText: 'Yes' }).waitFor();
    await checkScreen(session.page, '/dev, a reviewer');
    reviewer = { user, ...session };
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  it('a work e-mail member is claimed and approved by a reviewer; /profile shows APPROVED and exactly one push went out', async () => {
    const email = workEmail();
    const member = await register(browser, server, {}, { verify: 'COMPANY_EMAIL', email });
    const { page } = reviewer;
    await page.goto(`${reviewer.base}/review`);
    await page.getByRole('heading', { name: 'Review console' }).waitFor();
    const items = page.getByTestId('queue-item');
    await items.first().waitFor();
    assert.equal(await items.count(), 1);
    assert.match(await items.first().innerText(), /waiting \d+ min/);
    await items.first().click();
    const detail = page.getByTestId('review-detail');
    await detail.waitFor();
    // opening claimed it for this reviewer
    await page.locator('[data-testid="claim-state"][data-mine="true"]').waitFor();
    // the verification: method, the employer of the domain, the confirmed code
    assert.equal(await page.getByTestId('verify-method').innerText(), 'Work e-mail');
    assert.match(await page.getByTestId('verify-employer').innerText(), /tsmc/i);
    assert.match(await page.getByTestId('verify-code').innerText(), /^yes/);
    assert.match(await page.getByTestId('verification').innerText(), new RegExp(email.replace('.', '\\.')));
    assert.equal(await page.locator('.review-photos img').count(), 2);
    // choices, tags and partner conditions read as the register form labels them, not as wire values
    const fields = page.getByTestId('profile-fields');
    const row = (f) => fields.locator(`[data-field="${f}"] dd`);
    await row('gender').filter({ hasText: en['choice.gender.FEMALE'] }).waitFor();
    assert.equal(await row('gender').innerText(), en['choice.gender.FEMALE']);
    assert.equal(await row('hobbyTagIds').innerText(), `${en['tag.hobby.reading']}, ${en['tag.hobby.travel']}`);
    assert.equal(await row('valueItem').innerText(), `${en['condition.AGE']}: 28–40 ${en['condition.AGE.unit']}`);
    assert.equal(await row('city').innerText(), en['city.taipei_city']);
    assert.doesNotMatch(await fields.innerText(), /\bFEMALE\b|\b30[15]\b|"type"/);
    assert.doesNotMatch(await page.getByTestId('history').innerText(), /APPROVE|REJECT/, 'no decision yet');
    await chooseAction(page, 'Approve');
    await page.getByTestId('decision-submit').click();
    await page.locator('[data-testid="review-detail"][data-status="APPROVED"]').waitFor();
    await page.getByTestId('queue-empty').waitFor();

    await member.page.reload();
    await member.page.locator('[data-testid="review-status"][data-status="APPROVED"]').waitFor();
    assert.match(await member.page.getByTestId('review-status').innerText(), /Approved/);
    // the push goes out through the outbox worker: exactly one, and no second one later
    await waitFor(async () => (await pushesTo(server, member.user.userId)).length === 1, 'the approval push');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await pushesTo(server, member.user.userId)).length, 1);
    approved = member;
  });

  it('a rejected member sees the reasons, edits and resubmits, and the reviewer sees the change', async () => {
    const member = await register(browser, server);
    const { page } = reviewer;
    const id = await openNewest(page);
    await chooseAction(page, 'Reject');
    await page.getByLabel(/Photos are unclear/).check();
    await page.getByLabel(/Please tell a little more about yourself/).check();
    await page.getByLabel('Note to the member (optional)').fill('A brighter photo would help.');
    await page.getByTestId('decision-submit').click();
    await page.locator(`[data-testid="review-detail"][data-profile-id="${id}"][data-status="REJECTED"]`).waitFor();

    // the member reads the decision in their language
    const m = member.page;
    await m.reload();
    await m.locator('[data-testid="review-status"][data-status="REJECTED"]').waitFor();
    const reasons = await m.getByTestId('review-reasons').innerText();
    assert.match(reasons, /Photos are unclear/);
    assert.match(reasons, /Please tell a little more about yourself/);
    assert.match(await m.getByTestId('review-note').innerText(), /A brighter photo would help\./);
    await waitFor(async () => (await pushesTo(server, member.user.userId)).length === 1, 'the rejection push');

    // Straight to /register (a bookmark, not "Edit and resubmit"): the same form filled from the
    // stored profile, not an empty one, headed "Update your profile", the reasons on top, opened on
    // the first step the reviewer asked to change (the texts come before the photos) with its
    // fields marked
    await m.goto(`${member.base}/register`);
    await m.getByTestId('resubmit-notice').waitFor();
    assert.equal(await m.getByTestId('register-title').textContent(), 'Update your profile');
    const asked = await m.getByTestId('resubmit-reasons').innerText();
    assert.match(asked, /Photos are unclear/);
    assert.match(asked, /A brighter photo would help\./);
    await waitForStep(m, 'about');
    assert.match(await m.locator('[data-field="aboutMe"] textarea').inputValue(), /sourdough/);
    assert.equal(await m.locator('[data-field="aboutMe"].field-flagged [data-testid="field-flag"]').count(), 1);
    assert.equal(await m.locator('[data-field="feedback"].field-flagged').count(), 0, 'only what the reasons name');
    if (SCREENSHOTS) {
      await m.screenshot({ path: join(SCREENSHOT_DIR, 'resubmit-guided.png') });
      await m.setViewportSize({ width: 320, height: 700 });
      await m.screenshot({ path: join(SCREENSHOT_DIR, 'resubmit-guided-320.png') });
      await m.setViewportSize({ width: 390, height: 844 });
    }
    await m.getByTestId('step-photos').click();
    await waitForStep(m, 'photos');
    await m.locator('[data-field="photoNameList"].field-flagged').waitFor();
    await m.getByTestId('step-basics').click();
    await waitForStep(m, 'basics');
    assert.equal(await m.locator('[data-field="nickname"] input').inputValue(), 'Mei');
    assert.equal(await m.locator('.field-flagged').count(), 0);
    await m.goto(`${member.base}/profile`);
    await m.locator('[data-testid="review-status"][data-status="REJECTED"]').waitFor();

    // Edit and resubmit: the form opens filled from the stored profile
    await m.getByTestId('edit-resubmit').click();
    await m.waitForURL(/\/register$/);
    await m.getByTestId('resubmit-notice').waitFor();
    await waitForStep(m, 'about');
    const about = m.locator('[data-field="aboutMe"] textarea');
    assert.match(await about.inputValue(), /sourdough/);
    await about.fill('I design chips by day, bake sourdough at the weekend and hike on holidays.');
    await m.getByTestId('step-review').click();
    await waitForStep(m, 'review');
    await m.getByTestId('submit').click();
    await m.waitForURL(/\/profile$/, { timeout: 30_000 });
    await m.locator('[data-testid="review-status"][data-status="PENDING"]').waitFor();
    assert.equal((await server.reviewStatus(member.user.userId)).body.status, 'PENDING');

    // the reviewer: a resubmission, with what changed
    await page.getByRole('button', { name: 'Refresh' }).click();
    const item = page.locator(`[data-testid="queue-item"][data-profile-id="${id}"]`);
    await item.getByTestId('resubmission-badge').waitFor();
    await item.click();
    await page.locator(`[data-testid="review-detail"][data-profile-id="${id}"][data-status="PENDING"]`).waitFor();
    const changed = page.getByTestId('changed-fields');
    await changed.locator('[data-field="aboutMe"]').waitFor();
    assert.match(await changed.innerText(), /hike on holidays/);
    assert.equal(await changed.locator('[data-field="nickname"]').count(), 0, 'only what changed');
    assert.match(await page.getByTestId('history').innerText(), /Sent back for changes/);
  });

  it('approving an employee-ID proof needs the employer, picked from the catalogue, which goes on record', async () => {
    const member = await memberByApi(browser, server, { nickname: 'Mei' });
    const { page } = reviewer;
    const id = await openNewest(page);
    await chooseAction(page, 'Approve');
    await page.getByTestId('decision-submit').click();
    await page.locator('[data-field="employer"].field-invalid').waitFor();
    assert.equal((await server.reviewStatus(member.user.userId)).body.status, 'PENDING');
    await page.getByTestId('decision-employer').selectOption('mediatek');
    if (SCREENSHOTS) await page.getByTestId('decision-form').screenshot({ path: join(SCREENSHOT_DIR, 'console-employer-pick.png') });
    await page.getByTestId('decision-submit').click();
    await page.locator(`[data-testid="review-detail"][data-profile-id="${id}"][data-status="APPROVED"]`).waitFor();
    assert.equal((await server.reviewStatus(member.user.userId)).body.status, 'APPROVED');
    await member.context.close();
  });

  it('a decision on a profile that changed since it was opened shows the 409', async () => {
    const member = await memberByApi(browser, server, { nickname: 'Mei' });
    const { page } = reviewer;
    const id = await openNewest(page);
    // a second reviewer decides it meanwhile (through the API, as another laptop would)
    const other = await server.mockUser({ displayName: 'Second Reviewer' });
    await server.json('/__mock/reviewers', { method: 'POST', body: JSON.stringify({ userId: other.userId }) });
    const token = await server.idToken(other.userId);
    const login = await server.json('/api/user/login', { method: 'POST', headers: { 'X-Line-Id-Token': token }, body: JSON.stringify({ account: other.userId, password: other.userId }) });
    const auth = { Authorization: `Bearer ${login.body.token}` };
    const view = await server.json(`/api/review/profiles/${id}`, { headers: auth });
    // the first reviewer holds it: the second one is refused
    const held = await server.json(`/api/review/profiles/${id}/decision`, { method: 'POST', headers: auth, body: JSON.stringify({ action: 'APPROVE', version: view.body.version }) });
    assert.equal(held.status, 409);
    assert.equal(held.body.code, 'E005');
    // the member's profile changes under the first reviewer's eyes: release, the other decides
    await page.getByRole('button', { name: 'Release' }).click();
    await page.getByTestId('claim-state').waitFor({ state: 'detached' });
    const decided = await server.json(`/api/review/profiles/${id}/decision`, { method: 'POST', headers: auth, body: JSON.stringify({ action: 'APPROVE', employer: 'tsmc', version: view.body.version }) });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    await chooseAction(page, 'Approve');
    await page.getByTestId('decision-submit').click();
    await page.getByTestId('decision-conflict').waitFor();
    assert.match(await page.getByTestId('decision-conflict').innerText(), /409/);
    assert.equal((await server.reviewStatus(member.user.userId)).body.status, 'APPROVED');
    await member.context.close();
  });

  it('a member gets no /review: the page refuses and the server answers 403', async () => {
    assert.ok(approved, 'needs the member of the first test');
    await approved.page.goto(`${approved.base}/review`);
    await approved.page.getByTestId('review-refused').waitFor();
    assert.equal(await approved.page.getByTestId('queue').count(), 0);
    const token = await server.idToken(approved.user.userId);
    const login = await server.json('/api/user/login', { method: 'POST', headers: { 'X-Line-Id-Token': token }, body: JSON.stringify({ account: approved.user.userId, password: approved.user.userId }) });
    const queue = await server.json('/api/review/queue', { headers: { Authorization: `Bearer ${login.body.token}` } });
    assert.equal(queue.status, 403);
    assert.equal(queue.body.code, 'E004');
  });

  it('the code step: a wrong code is shown beside the code field, a resend waits, the right code confirms', async () => {
    const user = await server.mockUser();
    const { page, base, context } = await openAs(browser, server, user.userId);
    await page.goto(`${base}/register`);
    await waitForStep(page, 'basics');
    await fillBasics(page);
    await next(page);
    await waitForStep(page, 'work');
    const email = workEmail();
    await fillWork(page, 'COMPANY_EMAIL', { email, confirm: false });
    await page.getByTestId('email-code-send').click();
    await page.locator('#email-code-input').waitFor();
    assert.match(await page.getByTestId('email-code-send').innerText(), /New code in \d+ s/);
    assert.ok(await page.getByTestId('email-code-send').isDisabled());
    const code = await codeFromOutbox(base, email);
    const wrong = code.slice(0, 5) + String((Number(code[5]) + 1) % 10);
    await page.locator('#email-code-input').fill(wrong);
    await page.getByTestId('email-code-confirm').click();
    assert.match(await page.getByTestId('email-code-error').innerText(), /not right/);
    assert.equal(await page.getByTestId('email-confirmed').count(), 0);
    await page.locator('#email-code-input').fill(code);
    await page.getByTestId('email-code-confirm').click();
    await page.getByTestId('email-confirmed').waitFor();
    // another address needs its own code
    await page.locator('[data-field="companyEmail"] input').fill(workEmail());
    await page.getByTestId('email-code-send').waitFor();
    await context.close();
  });

  it('/dev sends signed follow/unfollow events through the webhook and lists the mail outbox', async () => {
    assert.ok(approved, 'needs the member of the first test');
    const { page } = approved;
    await page.goto(`${approved.base}/dev`);
    await page.getByTestId('dev-user-id').waitFor();
    await page.getByRole('button', { name: 'Send unfollow' }).click();
    await page.getByTestId('dev-webhook-result').filter({ hasText: 'unfollow sent (HTTP 200)' }).waitFor();
    assert.equal((await server.json(`/__mock/line/users/${approved.user.userId}`)).body.friend, false);
    await page.getByRole('button', { name: 'Send follow' }).click();
    // The whole text: "unfollow sent (HTTP 200)", still on screen, contains this one.
    await page.getByTestId('dev-webhook-result').filter({ hasText: /^follow sent \(HTTP 200\)$/ }).waitFor();
    assert.equal((await server.json(`/__mock/line/users/${approved.user.userId}`)).body.friend, true);
    await page.getByRole('button', { name: 'Load mail' }).click();
    // the code mail of the first test, as the outbox holds it
    const mail = await page.getByTestId('dev-mail').innerText();
    assert.match(mail, /tsmc\.com/);
    assert.match(mail, /\b\d{6}\b/);
  });

  it('the console works at phone width in zh-TW and ja', async () => {
    for (const [locale, heading, queue] of [['zh-TW', '審核控制台', '等待審核'], ['ja', '審査コンソール', '審査待ち']]) {
      const session = await openAs(browser, server, reviewer.user.userId, { locale });
      await session.page.goto(`${session.base}/review`);
      await session.page.getByRole('heading', { name: heading }).waitFor();
      await session.page.getByRole('heading', { name: queue }).waitFor();
      // nothing wider than the phone
      assert.ok(await session.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
      await session.context.close();
    }
  });
});
