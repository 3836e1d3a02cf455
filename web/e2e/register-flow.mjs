// Filling the register form the way a person does (en locale labels are not relied upon: fields
// are found by their payload name through data-field).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkScreenOnce, chooseFiles, pngBytes, SCREENSHOT_DIR } from './harness.mjs';

export const STEP_IDS = ['basics', 'work', 'lifestyle', 'tags', 'about', 'photos', 'conditions', 'location', 'review'];

const field = (page, name) => page.locator(`[data-field="${name}"]`);

export async function currentStep(page) {
  return page.locator('#register-step-title').getAttribute('data-step');
}

export async function waitForStep(page, id) {
  const step = page.locator(`#register-step-title[data-step="${id}"]`);
  // A newcomer's /register opens on the welcome: Start leads to step 1.
  if (id === 'basics') await passWelcome(page, step);
  await step.waitFor({ timeout: 15_000 });
}

/** Waits for the welcome or `then`, and presses Start on the welcome. */
export async function passWelcome(page, then = page.locator('#register-step-title[data-step="basics"]')) {
  const start = page.getByTestId('welcome-start');
  await start.or(then).first().waitFor({ timeout: 15_000 });
  if (await start.isVisible()) await start.click();
}

async function fill(page, name, value) {
  await field(page, name).locator('input, textarea').first().fill(value);
}

async function select(page, name, value) {
  await field(page, name).locator('select').selectOption(value);
}

async function chip(page, name, value) {
  await field(page, name).locator(`input[value="${value}"]`).check({ force: true });
}

export async function next(page) {
  await page.getByTestId('next').click();
}

/** Full-page screenshot. */
export async function shot(page, name, screenshots = true) {
  if (!screenshots) return;
  // A step seen for the first time shows a spinner until its code has rendered.
  await page.locator('form .spinner').waitFor({ state: 'detached', timeout: 10_000 });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

export async function fillBasics(page, { nickname = 'Mei', name = 'Lin Mei', gender = 'FEMALE', matchGender = 'MALE' } = {}) {
  await fill(page, 'nickname', nickname);
  await fill(page, 'name', name);
  await select(page, 'gender', gender);
  await select(page, 'matchGender', matchGender);
  await fill(page, 'birthday', '1994-05-12');
  await fill(page, 'height', '165');
}

/** A work address of a catalogue employer, new each time (codes are limited per address a day). */
export function workEmail() {
  return `mei.${Math.random().toString(36).slice(2, 10)}@tsmc.com`;
}

/** The newest 6-digit code the server mailed to `email`, read from the mock outbox. */
export async function codeFromOutbox(origin, email) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const mails = await (await fetch(`${origin}/__mock/mail`)).json();
    const mine = mails.filter((m) => m.to.toLowerCase().includes(email.toLowerCase()));
    const code = mine.length ? /\b(\d{6})\b/.exec(mine[mine.length - 1].text)?.[1] : undefined;
    if (code) return code;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no code mailed to ${email}`);
}

/** The COMPANY_EMAIL code step as a person does it: send, read the mail, type the 6 digits, confirm. */
export async function confirmWorkEmail(page, email) {
  await page.getByTestId('email-code-send').click();
  await page.locator('#email-code-input').waitFor();
  const code = await codeFromOutbox(new URL(page.url()).origin, email);
  await page.locator('#email-code-input').fill(code);
  await page.getByTestId('email-code-confirm').click();
  await page.getByTestId('email-confirmed').waitFor();
}

export async function fillWork(page, verify = 'COMPANY_EMAIL', { email = 'mei.lin@tsmc.com', confirm = true } = {}) {
  await select(page, 'occupationType', 'SOFTWARE_ENGINEERING');
  await fill(page, 'occupation', 'Firmware engineer');
  await select(page, 'incomeRange', 'INCOME_100_150');
  await fill(page, 'school', 'National Taiwan University');
  await select(page, 'education', 'MASTER');
  await chip(page, 'verifyMethod', verify);
  if (verify === 'COMPANY_EMAIL') {
    await fill(page, 'companyEmail', email);
    if (confirm) await confirmWorkEmail(page, email);
  }
  if (verify === 'EMPLOYEE_ID') {
    await chooseFiles(page, () => field(page, 'verifyTempFileName').locator('button').click(), { name: 'badge.png', mimeType: 'image/png', buffer: pngBytes(120, 80, [30, 64, 175]) });
    await field(page, 'verifyTempFileName').locator('img').waitFor();
  }
}

export async function fillLifestyle(page) {
  await select(page, 'marriageRecord', '0');
  await select(page, 'hasChildren', '0');
  await select(page, 'smoke', '0');
  await select(page, 'drink', '1');
  await select(page, 'tattoo', 'NONE');
}

export async function fillTags(page) {
  await chip(page, 'personalityTagIds', '103');
  await chip(page, 'hobbyTagIds', '301');
  await chip(page, 'hobbyTagIds', '305');
  await chip(page, 'fertilityPlanTagIds', await field(page, 'fertilityPlanTagIds').locator('input').first().getAttribute('value'));
}

export async function fillAbout(page) {
  await fill(page, 'aboutMe', 'I design chips by day and bake sourdough at the weekend.');
}

export async function addPhotos(page, count) {
  for (let i = 0; i < count; i++) {
    await chooseFiles(page, () => page.getByTestId(`photo-slot-${i}`).locator('button').click(), { name: `photo-${i}.png`, mimeType: 'image/png', buffer: pngBytes(96, 128, i ? [180, 83, 9] : [15, 118, 110]) });
    await page.getByTestId(`photo-slot-${i}`).locator('img').waitFor();
  }
}

export async function fillConditions(page) {
  await field(page, 'valueItem.AGE').locator('input[type=checkbox]').check();
  const inputs = field(page, 'valueItem.AGE').locator('input[type=number]');
  await inputs.nth(0).fill('28');
  await inputs.nth(1).fill('40');
}

export async function fillLocation(page) {
  await select(page, 'city', 'TPE');
  await fill(page, 'address', 'Da\u2019an District');
}

/** The step on display, once drawn, checked by axe unless this browser did already. */
export async function checkStep(page) {
  await page.locator('form .spinner').waitFor({ state: 'detached', timeout: 10_000 });
  await checkScreenOnce(page, `register: ${await currentStep(page)}`);
}

/** Fills every step (from `startAt` on) up to review; returns at the review step. Each step is
 *  checked by axe as it arrives (once a browser). */
export async function completeForm(page, { photos = 2, screenshots = false, verify = 'COMPANY_EMAIL', email = workEmail(), basics = {}, startAt = 'basics' } = {}) {
  const fillers = [(p) => fillBasics(p, basics), (p) => fillWork(p, verify, { email }), fillLifestyle, fillTags, fillAbout, (p) => addPhotos(p, photos), fillConditions, fillLocation];
  for (let i = STEP_IDS.indexOf(startAt); i < fillers.length; i++) {
    await waitForStep(page, STEP_IDS[i]);
    await checkStep(page);
    await fillers[i](page);
    await shot(page, `register-${i + 1}-${STEP_IDS[i]}`, screenshots);
    await next(page);
  }
  await waitForStep(page, 'review');
  await checkStep(page);
  assert.equal(await page.getByTestId('error-summary').count(), 0, 'no errors left at review');
  await shot(page, 'register-9-review', screenshots);
}
