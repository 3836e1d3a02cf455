// The rough edges a new user met on a phone-sized screen (390×844, Chromium), each
// asserted where it shows: a failed submit's error and retry in view, the first photo as avatar,
// dates in the member's language, named steps with a way back to the review, the compact employer
// list whose entries fill in the work e-mail domain.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KizunaServer, launchBrowser, openAs, VIEWPORT, checkScreen } from './harness.mjs';
import { completeForm, fillBasics, next, waitForStep } from './register-flow.mjs';

const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/;

/** Whether the element lies wholly inside the viewport. */
async function inView(locator) {
  const box = await locator.boundingBox();
  return Boolean(box) && box.y >= 0 && box.y + box.height <= VIEWPORT.height && box.x >= 0 && box.x + box.width <= VIEWPORT.width;
}

/** The stored file name in an image URL (`…/file/fetch/<name>`). */
function fileOf(src) {
  return /\/file\/fetch\/([^/?#]+)/.exec(src ?? '')?.[1];
}

describe('rough edges on a phone', () => {
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

  /** A new member at /register, on the phone. */
  async function newMember(opts = {}) {
    const user = await server.mockUser({ displayName: 'Rough Edges' });
    const session = await openAs(browser, server, user.userId, opts);
    await session.page.goto(`${session.base}/register`);
    await waitForStep(session.page, 'basics');
    return { user, ...session };
  }

  it('the steps have names: visible on the phone for the current step, accessible for every step', async () => {
    const { page, context } = await newMember();
    for (const name of ['About you', 'Work & verification', 'Lifestyle', 'Photos', 'Review & submit']) {
      assert.equal(await page.getByRole('button', { name, exact: true }).count(), 1, `a step button named ${name}`);
    }
    const current = page.getByTestId('step-basics').locator('.step-name');
    assert.ok(await current.isVisible(), 'the current step shows its name');
    assert.ok(await inView(current), 'the current step name is on screen');
    assert.equal(await current.innerText(), 'About you');
    await fillBasics(page);
    await next(page);
    await waitForStep(page, 'work');
    // Moving on brings the new current step's name into view in the sideways list.
    assert.ok(await inView(page.getByTestId('step-work').locator('.step-name')), 'the work step name is on screen');
    await context.close();
  });

  it('"Back to review" after Edit returns straight to the review', async () => {
    const { page, context } = await newMember();
    await completeForm(page, { photos: 1 });
    assert.equal(await page.getByTestId('back-to-review').count(), 0, 'no way back to the review before reaching it');
    await page.locator('.review-item', { hasText: 'Nickname' }).getByRole('button', { name: 'Edit' }).click();
    await waitForStep(page, 'basics');
    const back = page.getByTestId('back-to-review');
    assert.equal(await back.innerText(), 'Back to review');
    await page.locator('[data-field="nickname"] input').fill('Meimei');
    await back.click();
    await waitForStep(page, 'review');
    assert.match(await page.locator('.review-list').innerText(), /Meimei/);
    // Leaving the review by Back offers the same way back.
    await page.getByRole('button', { name: 'Back', exact: true }).click();
    await waitForStep(page, 'location');
    await page.getByTestId('back-to-review').click();
    await waitForStep(page, 'review');
    await context.close();
  });

  it('a submit while the server is down: the error and "Try submitting again" in view, the action focused', async () => {
    const { page, context } = await newMember();
    await completeForm(page, { photos: 1 });
    await server.stop();
    try {
      await page.getByTestId('submit').click();
      const error = page.getByTestId('submit-error');
      await error.waitFor({ timeout: 20_000 });
      const retry = page.getByTestId('submit');
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'submit' && !document.activeElement.hasAttribute('disabled'), null, { timeout: 5_000 });
      assert.equal(await retry.innerText(), 'Try submitting again');
      assert.ok(await inView(error), 'the error box is on screen');
      assert.ok(await inView(retry), '"Try submitting again" is on screen');
    } finally {
      await server.start();
    }
    await page.getByTestId('submit').click();
    await page.waitForURL(/\/profile$/, { timeout: 30_000 });
    await context.close();
  });

  it('dates in words on the form, the review and /profile; the first photo is the avatar until one is chosen', async () => {
    const { page, context } = await newMember();
    await fillBasics(page);
    assert.match(await page.locator('[data-field="birthday"]').innerText(), /May 12, 1994/);
    await next(page);
    await completeForm(page, { photos: 2, startAt: 'work' });
    const review = page.locator('.review-list');
    assert.match(await review.innerText(), /May 12, 1994/);
    assert.doesNotMatch(await review.innerText(), ISO_DATE);
    await page.getByTestId('submit').click();
    await page.waitForURL(/\/profile$/, { timeout: 30_000 });
    await page.getByTestId('review-status').waitFor();

    await page.locator('.photo-grid img').first().waitFor();
    await checkScreen(page, '/profile, PENDING');
    const firstPhoto = fileOf(await page.locator('.photo-grid img').first().getAttribute('src'));
    assert.ok(firstPhoto, 'the first photo has a stored name');
    const avatar = page.locator('.profile-header img.avatar');
    await avatar.waitFor();
    assert.equal(fileOf(await avatar.getAttribute('src')), firstPhoto);
    await page.waitForFunction(() => {
      const img = document.querySelector('.profile-header img.avatar');
      return img?.complete && img.naturalWidth > 0;
    }, null, { timeout: 10_000 });

    await page.locator('.summary-list dd', { hasText: 'May 12, 1994' }).waitFor();
    assert.doesNotMatch(await page.locator('main').innerText(), ISO_DATE);
    await context.close();
  });

  it('the birthday in words in zh-TW and ja on the form', async () => {
    for (const [locale, words] of [['zh-TW', '1994年5月12日'], ['ja', '1994年5月12日']]) {
      const user = await server.mockUser();
      const { page, base, context } = await openAs(browser, server, user.userId, { locale });
      await page.goto(`${base}/register`);
      await waitForStep(page, 'basics');
      await fillBasics(page);
      const birthday = page.locator('[data-field="birthday"]');
      assert.ok((await birthday.innerText()).includes(words), `${locale}: ${await birthday.innerText()}`);
      await context.close();
    }
  });

  it('the employer list is one line until opened, searchable, and an employer fills in the work e-mail domain', async () => {
    const user = await server.mockUser();
    const { page, base, context } = await openAs(browser, server, user.userId);
    await page.goto(`${base}/register`);
    await waitForStep(page, 'basics');
    await page.getByTestId('step-work').click();
    await waitForStep(page, 'work');

    const employers = page.getByTestId('employers');
    const closed = await employers.boundingBox();
    assert.ok(closed.height < 140, `closed, the employer list takes ${closed.height}px`);
    assert.equal(await employers.locator('.employer').first().isVisible(), false);

    await employers.locator('summary').click();
    const all = await employers.locator('.employer').count();
    assert.ok(all > 10, `${all} employers listed`);
    const open = await employers.boundingBox();
    assert.ok(open.height < VIEWPORT.height, `open, it stays within one screen (${open.height}px)`);

    await page.getByTestId('employer-search').fill('tsmc');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="employers"] .employer').length === 1);
    const entry = employers.locator('.employer').first();
    assert.match(await entry.innerText(), /@tsmc\.com/);

    // Tapping it chooses the work e-mail and fills in the domain, the field focused for the name.
    await entry.click();
    const email = page.locator('[data-field="companyEmail"] input');
    await email.waitFor();
    assert.equal(await email.inputValue(), '@tsmc.com');
    assert.equal(await page.locator('[data-field="verifyMethod"] input[value="COMPANY_EMAIL"]').isChecked(), true);
    await page.waitForFunction(() => document.activeElement?.closest('[data-field="companyEmail"]') !== null);
    assert.equal(await employers.evaluate((el) => el.open), false, 'the list closes after the choice');

    // A name typed before the choice is kept.
    await email.fill('mei.lin');
    await employers.locator('summary').click();
    await page.getByTestId('employer-search').fill('tsmc');
    await employers.locator('.employer').first().click();
    assert.equal(await email.inputValue(), 'mei.lin@tsmc.com');
    await page.locator('.notice-ok', { hasText: 'Recognised employer' }).waitFor();
    await context.close();
  });
});
