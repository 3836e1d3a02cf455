// The main flows with the keyboard alone — register, like, match, chat, report. Tab and
// Shift+Tab move the focus (never a click, never a fill), Enter, Space and the arrow keys act; each
// control on the way shows where the focus is. Only the phone's own pickers are driven as the
// system would (the file chooser a keyboard's Enter opens).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KizunaServer, checkScreen, chooseFiles, launchBrowser, openAs, pngBytes } from './harness.mjs';
import { approveAll, registerByApi, reviewer } from './members.mjs';
import { STEP_IDS, waitForStep } from './register-flow.mjs';

/** In the page: whether `el` shows where the focus is (its own outline or shadow, or that of the
 *  chip or row drawn around it), and how to name it in a message. */
function focusState(targets) {
  const a = document.activeElement;
  const shows = (e) => {
    if (!e) return false;
    const s = getComputedStyle(e);
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
  };
  // The browser's own part of a control (a date field's calendar button) draws its own ring.
  const native = Boolean(a?.matches(':focus-within') && !a.matches(':focus'));
  const ring = native || shows(a) || shows(a?.closest('.chip, label, .step-dot'));
  const name = a ? `<${a.tagName.toLowerCase()}${a.dataset?.testid ? ` data-testid="${a.dataset.testid}"` : ''}${a.id ? ` id="${a.id}"` : ''}> ${(a.getAttribute('aria-label') || a.textContent || '').trim().slice(0, 40)}` : 'nothing';
  return { there: targets.includes(a), ring, name, body: a === document.body };
}

/** Tab (Shift+Tab with `back`) until `target` (or one of the elements it matches) has the focus,
 *  every stop on the way showing it; fails after `max` presses. */
async function tabTo(page, target, { back = false, max = 60 } = {}) {
  await target.first().waitFor();
  const els = await target.elementHandles();
  const stops = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    const now = await page.evaluate(focusState, els);
    if (!now.body) assert.ok(now.ring, `no visible focus on ${now.name}`);
    stops.push(now.name);
    if (now.there) return;
  }
  assert.fail(`Tab never reached ${await target.first().evaluate((e) => e.outerHTML.slice(0, 120))}; stops:\n  ${stops.join('\n  ')}`);
}

/** The focused <select> moved by the arrow keys onto `value`. */
async function chooseByKeys(page, select, value) {
  const { from, to } = await select.evaluate((s, v) => ({ from: s.selectedIndex, to: [...s.options].findIndex((o) => o.value === v) }), value);
  assert.ok(to >= 0, `no option ${value}`);
  for (let i = 0; i < Math.abs(to - from); i++) await page.keyboard.press(to > from ? 'ArrowDown' : 'ArrowUp');
  assert.equal(await select.inputValue(), value);
}

const field = (page, name) => page.locator(`[data-field="${name}"]`);

/** Tab to a text box and type into it. */
async function typeInto(page, target, text) {
  await tabTo(page, target);
  await page.keyboard.type(text);
}

/** Tab to a select and choose by the arrow keys. */
async function choose(page, name, value) {
  const select = field(page, name).locator('select');
  await tabTo(page, select);
  await chooseByKeys(page, select, value);
}

/** Tab to a chip and check it: a checkbox with Space; in a group of radios, which Tab enters
 *  once, the arrow keys move to it (and check it). */
async function chip(page, name, value) {
  const input = field(page, name).locator(`input[value="${value}"]`);
  if ((await input.getAttribute('type')) === 'radio') {
    await tabTo(page, field(page, name).locator('input[type="radio"]'));
    await page.keyboard.press('Space');
    for (let i = 0; i < 10 && !(await input.isChecked()); i++) await page.keyboard.press('ArrowRight');
  } else {
    await tabTo(page, input);
    await page.keyboard.press('Space');
  }
  assert.ok(await input.isChecked(), `${name} ${value} checked`);
}

/** Tab to a button that opens the file chooser, press Enter, and pick `files` in it. */
async function pickFiles(page, button, files) {
  await tabTo(page, button);
  await chooseFiles(page, () => page.keyboard.press('Enter'), files);
}

/** Next, by the keys; the step it arrives on checked by axe. */
async function next(page, from) {
  await tabTo(page, page.getByTestId('next'));
  await page.keyboard.press('Enter');
  const step = STEP_IDS[STEP_IDS.indexOf(from) + 1];
  await waitForStep(page, step);
  await page.locator('form .spinner').waitFor({ state: 'detached' });
  await checkScreen(page, `register: ${step}, by keyboard`);
}

describe('the main flows with the keyboard alone', () => {
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

  it('register, like, match, chat and report with Tab, Enter, Space and the arrow keys', async () => {
    const user = await server.mockUser({ displayName: 'Keys' });
    const { page, base, context } = await openAs(browser, server, user.userId);
    await page.goto(`${base}/`);
    await waitForStep(page, 'basics');

    // Register.
    await typeInto(page, field(page, 'nickname').locator('input'), 'Yui');
    await typeInto(page, field(page, 'name').locator('input'), 'Tanaka Yui');
    await choose(page, 'gender', 'FEMALE');
    await choose(page, 'matchGender', 'MALE');
    // A date field takes the month, the day and the year typed in turn (en-US).
    await typeInto(page, field(page, 'birthday').locator('input'), '05121994');
    assert.equal(await field(page, 'birthday').locator('input').inputValue(), '1994-05-12');
    await typeInto(page, field(page, 'height').locator('input'), '162');
    await checkScreen(page, 'register: basics, filled in by keyboard');
    await next(page, 'basics');

    await choose(page, 'occupationType', 'SOFTWARE_ENGINEERING');
    await typeInto(page, field(page, 'occupation').locator('input'), 'Data engineer');
    await choose(page, 'incomeRange', 'INCOME_100_150');
    await typeInto(page, field(page, 'school').locator('input'), 'Kyoto University');
    await choose(page, 'education', 'MASTER');
    await chip(page, 'verifyMethod', 'EMPLOYEE_ID');
    await pickFiles(page, field(page, 'verifyTempFileName').locator('button'), { name: 'badge.png', mimeType: 'image/png', buffer: pngBytes(120, 80, [30, 64, 175]) });
    await field(page, 'verifyTempFileName').locator('img').waitFor();
    await next(page, 'work');

    for (const [name, value] of [['marriageRecord', '0'], ['hasChildren', '0'], ['smoke', '0'], ['drink', '1'], ['tattoo', 'NONE']]) await choose(page, name, value);
    await next(page, 'lifestyle');

    await chip(page, 'personalityTagIds', '103');
    await chip(page, 'hobbyTagIds', '301');
    await chip(page, 'fertilityPlanTagIds', await field(page, 'fertilityPlanTagIds').locator('input').first().getAttribute('value'));
    await next(page, 'tags');

    await typeInto(page, field(page, 'aboutMe').locator('textarea'), 'I build data pipelines and cycle along the Kamo river.');
    await next(page, 'about');

    for (const i of [0, 1]) {
      await pickFiles(page, page.getByTestId(`photo-slot-${i}`).locator('button'), { name: `p${i}.png`, mimeType: 'image/png', buffer: pngBytes(96, 128, i ? [180, 83, 9] : [15, 118, 110]) });
      await page.getByTestId(`photo-slot-${i}`).locator('img').waitFor();
    }
    await next(page, 'photos');

    await tabTo(page, field(page, 'valueItem.AGE').locator('input[type=checkbox]'));
    await page.keyboard.press('Space');
    const ages = field(page, 'valueItem.AGE').locator('input[type=number]');
    await tabTo(page, ages.nth(0));
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('28');
    await tabTo(page, ages.nth(1));
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('40');
    await next(page, 'conditions');

    await choose(page, 'city', 'TPE');
    await typeInto(page, field(page, 'address').locator('input'), 'Zhongshan District');
    // The distance by the arrow keys: 5 km a step.
    const distance = page.locator('#distance');
    await tabTo(page, distance);
    const before = Number(await distance.inputValue());
    await page.keyboard.press('ArrowRight');
    assert.equal(Number(await distance.inputValue()), before + 5);
    await next(page, 'location');

    assert.equal(await page.getByTestId('error-summary').count(), 0, 'nothing left to fix');
    await tabTo(page, page.getByTestId('submit'));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/profile$/, { timeout: 30_000 });
    await page.locator('[data-testid="review-status"][data-status="PENDING"]').waitFor();
    await checkScreen(page, '/profile after a keyboard registration');

    // Approved; Ren has liked her already.
    const ren = await registerByApi(server, { nickname: 'Ren', gender: 'MALE', matchGender: 'FEMALE', photos: 3 });
    assert.equal(await approveAll(server), 2);
    const yuiId = (await server.json('/api/introductions', { headers: ren.auth })).body.introductions.find((i) => i.member.nickname === 'Yui').member.memberId;
    assert.equal((await server.json(`/api/introductions/${yuiId}/like`, { method: 'POST', headers: ren.auth })).status, 200);

    // Like: on /today, Tab to Ren's Like and press Enter. The match: "It's a match" opens on the
    // first message; typed, Tab to Send and Enter sends it and opens the chat.
    await page.goto(`${base}/today`);
    const card = page.getByTestId('introduction').filter({ hasText: 'Ren' });
    await card.waitFor();
    await checkScreen(page, '/today');
    await tabTo(page, card.getByTestId('like'));
    await page.keyboard.press('Enter');
    await page.getByTestId('its-a-match').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'first-message', 'the first focus is on the first message');
    await checkScreen(page, "It's a match");
    await page.keyboard.type('Hi Ren!');
    await tabTo(page, page.getByTestId('say-hello'));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/chat\?match=\d+$/);
    await page.locator('[data-testid="chat-message"][data-delivery="sent"]').filter({ hasText: 'Hi Ren!' }).waitFor();

    // Chat: the message box, typed into, Enter sends.
    const input = page.getByTestId('chat-input');
    await tabTo(page, input);
    await page.keyboard.type('Hello Ren, nice to meet you!');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="chat-message"][data-delivery="sent"]').filter({ hasText: 'nice to meet you' }).waitFor();
    await checkScreen(page, 'the chat');

    // His photos, by the keys: the profile from the chat's header, a photo opened with Enter, the
    // strip focused and moved by the arrows, Esc back to the photo.
    await tabTo(page, page.getByTestId('chat-who'), { back: true });
    await page.keyboard.press('Enter');
    await page.getByTestId('member-profile').waitFor();
    await checkScreen(page, "Ren's profile");
    const photo = page.locator('.photo-open').first();
    await tabTo(page, photo);
    await page.keyboard.press('Enter');
    const strip = page.getByTestId('photo-viewer-strip');
    await strip.waitFor();
    assert.equal(await strip.evaluate((el) => el === document.activeElement), true, 'the strip takes the focus: the arrows scroll it');
    await page.keyboard.press('ArrowRight');
    await page.getByTestId('photo-viewer-count').filter({ hasText: /^2 \/ 3$/ }).waitFor();
    await checkScreen(page, 'the photo viewer');
    await page.keyboard.press('Escape');
    await page.getByTestId('photo-viewer').waitFor({ state: 'hidden' });
    assert.equal(await photo.evaluate((el) => el === document.activeElement), true, 'the focus is back on the photo');

    // Report from the chat's menu: the menu button, Report, a reason with Space, the confirm.
    await page.goBack();
    await page.getByTestId('chat-input').waitFor();
    await tabTo(page, page.getByTestId('chat-menu'), { back: true });
    await page.keyboard.press('Enter');
    await page.getByTestId('chat-menu-sheet').waitFor();
    await checkScreen(page, "the chat's menu");
    await tabTo(page, page.getByTestId('menu-report'));
    await page.keyboard.press('Enter');
    const dialog = page.getByTestId('report-dialog');
    const reason = dialog.locator('input[type="radio"]').first();
    await reason.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'report-dialog-title', 'the dialog opens on its title, the keyboard closed');
    await checkScreen(page, 'the report dialog');
    await tabTo(page, reason);
    await page.keyboard.press('Space');
    assert.ok(await reason.isChecked());
    await tabTo(page, page.getByTestId('report-confirm'));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/matches$/);
    await page.getByTestId('toast-success').waitFor();
    const reports = (await server.json('/api/review/reports', { headers: await reviewer(server) })).body.items;
    assert.deepEqual(reports.map((r) => r.target.nickname), ['Ren']);
    await checkScreen(page, '/matches after a report');
    await context.close();
  });
});
