// End to end, in three browser contexts: an approved member edits a photo and the
// about-me from /profile; the other member keeps seeing the approved version; the reviewer sees
// the revision with what changed and approves it; the other member then sees the new photo. A
// second revision is sent back: the approved version stays and the member's form shows why.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, ensureScreenshotDir, launchBrowser, openAs, pngBytes, checkScreen, checkScreenOnce, chooseFiles } from './harness.mjs';
import { approveAll, bearer, memberByApi } from './members.mjs';
import { checkStep, waitForStep } from './register-flow.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';
const NEW_ABOUT = 'I sail on Sundays and bake sourdough on Saturdays.';
const SENT_BACK = 'Weekends are for friends and family.';

async function myProfile(server, auth) {
  const info = await server.json('/api/user/my-info', { headers: auth });
  assert.equal(info.status, 200);
  return info.body;
}

/** The phone's screen (390×844, not the whole page), `part` brought into it when given. */
async function shot(page, name, part) {
  if (!SCREENSHOTS) return;
  if (part) await part.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

/** What the other member's /today shows of `nickname`'s card (its text and image sources). */
async function cardOf(page, base, nickname) {
  await page.goto(`${base}/today`);
  const card = page.getByTestId('introduction').filter({ hasText: nickname });
  await card.waitFor();
  await card.locator('img').first().waitFor();
  await checkScreenOnce(page, '/today');
  return { text: await card.innerText(), html: await card.innerHTML() };
}

/** The about-me the other member reads on `nickname`'s profile page (opened from their card). */
async function aboutOf(page, base, nickname) {
  await page.goto(`${base}/today`);
  const card = page.getByTestId('introduction').filter({ hasText: nickname });
  const id = await card.getAttribute('data-member-id');
  await page.goto(`${base}/member?id=${id}`);
  await page.getByTestId('member-about').waitFor();
  await checkScreenOnce(page, "an introduction's profile");
  return page.getByTestId('member-about').innerText();
}

describe('Edit after approval', () => {
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

  it('a new photo and about-me wait for the reviewer, then the other member sees them; a rejected revision keeps the old and says why', async () => {
    const mei = await memberByApi(browser, server, { nickname: 'Mei', name: 'Lin Mei', gender: 'FEMALE', matchGender: 'MALE', photos: 1 });
    const kai = await memberByApi(browser, server, { nickname: 'Kai', name: 'Chen Kai', gender: 'MALE', matchGender: 'FEMALE' });
    assert.equal(await approveAll(server), 2);
    const meiAuth = await bearer(server, mei.user.userId);
    const before = await myProfile(server, meiAuth);
    const [oldPhoto] = before.profile.photoNameList;
    const seen = await cardOf(kai.page, kai.base, 'Mei');
    assert.ok(seen.html.includes(oldPhoto), 'Kai sees her approved photo');

    // Mei edits from /profile: the same form, her name, birthday and gender read-only. What she
    // looks for is changed there too, as the card of her conditions says.
    const m = mei.page;
    await m.goto(`${mei.base}/profile`);
    assert.match(await m.getByTestId('conditions-help').innerText(), /To change them, use Edit my profile above/);
    assert.doesNotMatch(await m.getByTestId('conditions-help').innerText(), /official account/);
    await checkScreen(m, '/profile, APPROVED');
    await m.getByTestId('edit-profile').click();
    await m.waitForURL(/\/register$/);
    await m.getByTestId('edit-notice').waitFor();
    assert.equal(await m.getByTestId('register-title').textContent(), 'Edit your profile');
    await waitForStep(m, 'basics');
    await m.getByTestId('fixed-notice').waitFor();
    assert.equal(await m.locator('[data-field="name"] input').getAttribute('readonly'), '');
    assert.equal(await m.locator('[data-field="birthday"] input').getAttribute('readonly'), '');
    assert.equal(await m.locator('[data-field="gender"] select').isDisabled(), true);
    assert.equal(await m.locator('[data-field="nickname"] input').getAttribute('readonly'), null, 'the rest stays editable');
    await checkStep(m);
    await shot(m, 'profile-edit-form', m.getByTestId('fixed-notice'));

    await m.getByTestId('step-about').click();
    await waitForStep(m, 'about');
    await checkStep(m);
    await m.locator('[data-field="aboutMe"] textarea').fill(NEW_ABOUT);
    await m.getByTestId('step-photos').click();
    await waitForStep(m, 'photos');
    await checkStep(m);
    await m.getByTestId('photo-slot-0').getByRole('button', { name: 'Remove photo 1' }).click();
    await chooseFiles(m, () => m.getByTestId('photo-slot-0').locator('button').click(), { name: 'sailing.png', mimeType: 'image/png', buffer: pngBytes(96, 128, [200, 30, 90]) });
    await m.getByTestId('photo-slot-0').locator('img').waitFor();
    await m.getByTestId('step-review').click();
    await waitForStep(m, 'review');
    await checkStep(m);
    await m.getByTestId('submit').click();
    await m.waitForURL(/\/profile$/, { timeout: 30_000 });
    await m.locator('[data-testid="revision-status"][data-status="PENDING"]').waitFor();
    // (The "Saved" toast gone, so that it covers nothing.)
    if (SCREENSHOTS) await m.getByTestId('toast-success').waitFor({ state: 'detached' });
    await shot(m, 'profile-revision-pending', m.getByTestId('revision-status'));
    const pending = await myProfile(server, meiAuth);
    assert.equal(pending.reviewStatus, 'APPROVED');
    assert.deepEqual(pending.revision.changedFields, ['aboutMe', 'photoNameList']);
    const [newPhoto] = pending.revision.profile.photoNameList;
    assert.notEqual(newPhoto, oldPhoto);

    // Kai still sees the approved version: neither the new words nor the new photo.
    const during = await cardOf(kai.page, kai.base, 'Mei');
    assert.ok(during.html.includes(oldPhoto), 'the approved photo');
    assert.ok(!during.html.includes(newPhoto), 'not the new photo before the approval');
    assert.ok(!during.text.includes('sail'), 'not the new words before the approval');
    assert.equal(await aboutOf(kai.page, kai.base, 'Mei'), before.profile.aboutMe, 'the approved about-me');

    // The reviewer, on a laptop: the revision in the queue, what changed, the new photo; approves.
    const rei = await server.mockUser({ displayName: 'Rei Reviewer' });
    await server.json('/__mock/reviewers', { method: 'POST', body: JSON.stringify({ userId: rei.userId }) });
    const reviewer = await openAs(browser, server, rei.userId, { laptop: true });
    const r = reviewer.page;
    await r.goto(`${reviewer.base}/review`);
    const item = r.locator('[data-testid="queue-item"]').filter({ has: r.getByTestId('revision-badge') });
    await item.waitFor();
    await item.click();
    await r.locator('[data-testid="review-detail"][data-revision="1"]').waitFor();
    const changed = r.getByTestId('changed-fields');
    await changed.locator('[data-field="aboutMe"]').waitFor();
    await changed.locator('[data-field="photoNameList"]').waitFor();
    await checkScreen(r, 'a revision in the review console');
    assert.match(await changed.innerText(), /sail on Sundays/);
    assert.equal(await changed.locator('[data-field="nickname"]').count(), 0, 'only what changed');
    assert.ok((await r.locator('.review-photos').innerHTML()).includes(newPhoto));
    // The photos compared as pictures, not ids: the new one marked new, the dropped one removed,
    // both drawn (the approved version still lets the reviewer fetch the old one).
    const diff = r.getByTestId('file-diff-photoNameList');
    assert.doesNotMatch(await changed.innerText(), new RegExp(`${oldPhoto}|${newPhoto}`), 'no file ids as text');
    for (const [state, id] of [['added', newPhoto], ['removed', oldPhoto]]) {
      const img = diff.locator(`[data-state="${state}"] img`);
      assert.ok((await img.getAttribute('srcset')).includes(id), `${state}: ${id}`);
      await img.scrollIntoViewIfNeeded();
      await r.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
    }
    assert.equal(await diff.locator('[data-state="kept"]').count(), 0);
    if (SCREENSHOTS) await r.screenshot({ path: join(SCREENSHOT_DIR, 'console-revision.png') });
    await r.locator('[data-testid="decision-form"] label.chip', { hasText: 'Approve' }).click();
    await r.getByTestId('decision-submit').click();
    await r.locator('[data-testid="review-detail"][data-revision=""]').waitFor();

    // Kai now sees the new photo and words; Mei's profile has no revision waiting.
    const afterApproval = await cardOf(kai.page, kai.base, 'Mei');
    assert.ok(afterApproval.html.includes(newPhoto), 'the new photo once approved');
    assert.ok(!afterApproval.html.includes(oldPhoto), 'the dropped photo is gone');
    assert.equal(await aboutOf(kai.page, kai.base, 'Mei'), NEW_ABOUT, 'the new about-me once approved');
    await m.goto(`${mei.base}/profile`);
    await m.getByTestId('edit-profile-card').waitFor();
    assert.equal(await m.getByTestId('revision-status').count(), 0);
    assert.equal((await myProfile(server, meiAuth)).profile.aboutMe, NEW_ABOUT);

    // A second revision is sent back: the approved version stays, Mei reads why.
    await m.getByTestId('edit-profile').click();
    await m.waitForURL(/\/register$/);
    await m.getByTestId('step-about').click();
    await waitForStep(m, 'about');
    await m.locator('[data-field="aboutMe"] textarea').fill(SENT_BACK);
    await m.getByTestId('step-review').click();
    await waitForStep(m, 'review');
    await m.getByTestId('submit').click();
    await m.waitForURL(/\/profile$/, { timeout: 30_000 });
    await m.locator('[data-testid="revision-status"][data-status="PENDING"]').waitFor();
    await r.getByRole('button', { name: 'Refresh' }).click();
    await item.waitFor();
    await item.click();
    await r.locator('[data-testid="review-detail"][data-revision="2"]').waitFor();
    await r.locator('[data-testid="decision-form"] label.chip', { hasText: 'Reject' }).click();
    await r.locator('[data-field="reasons"] input[value="PROFILE_INCOMPLETE"]').check();
    await r.locator('#decision-note').fill('A few more words about your weekends, please.');
    await r.getByTestId('decision-submit').click();
    await r.locator('[data-testid="review-detail"][data-revision=""]').waitFor();

    const stays = await cardOf(kai.page, kai.base, 'Mei');
    assert.ok(!stays.text.includes(SENT_BACK), 'the rejected words never reach Kai');
    assert.equal(await aboutOf(kai.page, kai.base, 'Mei'), NEW_ABOUT, 'the approved about-me stays');
    assert.ok(stays.html.includes(newPhoto));
    await m.goto(`${mei.base}/profile`);
    await m.locator('[data-testid="revision-status"][data-status="REJECTED"]').waitFor();
    assert.match(await m.getByTestId('revision-reasons').innerText(), /tell a little more about yourself/);
    assert.match(await m.getByTestId('revision-note').innerText(), /about your weekends/);
    await shot(m, 'profile-revision-rejected', m.getByTestId('revision-status'));
    // Edit again: "Update your profile", the form on the revision, the reasons on top, on the
    // step to change.
    await m.getByTestId('edit-profile').click();
    await m.waitForURL(/\/register$/);
    await m.getByTestId('resubmit-reasons').waitFor();
    assert.equal(await m.getByTestId('register-title').textContent(), 'Update your profile');
    await waitForStep(m, 'about');
    assert.equal(await m.locator('[data-field="aboutMe"] textarea').inputValue(), SENT_BACK);
    await m.locator('[data-field="aboutMe"].field-flagged').waitFor();
    await shot(m, 'profile-edit-rejected', m.getByTestId('resubmit-reasons'));

    // The fixed fields' notice links the help topic on asking a reviewer for a correction.
    await m.getByTestId('step-basics').click();
    await waitForStep(m, 'basics');
    await m.getByTestId('fixed-help').click();
    await m.waitForURL(/\/help\?topic=corrections$/);
    const topic = m.locator('[data-testid="help-topic"][data-topic="corrections"]');
    await topic.waitFor();
    await checkScreen(m, 'the help on corrections');
    await topic.waitFor();
    assert.match(await topic.innerText(), /official account in LINE[\s\S]*proof[\s\S]*A reviewer checks the proof and corrects your profile/);
    await mei.context.close();
    await kai.context.close();
    await reviewer.context.close();
  });
});
