// Every screen accessible. One light pass per language (en, zh-TW, ja) over every screen
// a new member, an approved member and a reviewer meet — each at 390×844 and again at 320×640,
// checked by axe-core against WCAG 2.0, 2.1 and 2.2 A and AA (harness `checkScreen`) — and the
// issue's numbered points, each with an assertion of its own where axe cannot prove it: the focus
// around "It's a match" and the report dialog, reduced motion, the layout at 320 px; and the
// accessibility tree of a card, a photo and a chat message, so that their names cannot silently
// change. The rest of the suite checks each screen it meets too; this file is what makes every
// screen meet each language.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, WEB_DIR, checkScreen, ensureScreenshotDir, launchBrowser, layoutProblems, openAs } from './harness.mjs';
import { approveAll, bearer, registerByApi, reviewer } from './members.mjs';
import { passWelcome } from './register-flow.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';
const PHONE = { width: 390, height: 844 };
const NARROW = { width: 320, height: 640 };
const LOCALES = { en: 'en-US', 'zh-TW': 'zh-TW', ja: 'ja-JP' };
const messages = Object.fromEntries(Object.keys(LOCALES).map((l) => [l, JSON.parse(readFileSync(join(WEB_DIR, `src/lib/i18n/locales/${l}.json`), 'utf8'))]));
/** Every route of the app (src/app/routes.ts) but `/`, which only sends the visitor on. */
const ROUTES = [...readFileSync(join(WEB_DIR, 'src/app/routes.ts'), 'utf8').matchAll(/\{ name: '([\w-]+)', path:/g)].map((m) => m[1]).filter((r) => r !== 'index');
const DIALOGS = ['its-a-match', 'photo-viewer', 'like-sheet', 'report-dialog', 'block-dialog', 'unmatch-dialog', 'chat-menu-sheet', 'share-date'];
const STEPS = ['basics', 'work', 'lifestyle', 'tags', 'about', 'photos', 'conditions', 'location', 'review'];
/** Each language's members: the one whose screens are walked, the one who liked her, a match,
 *  one she liked, one she reports. */
const NAMES = {
  en: ['Mei', 'Kai', 'Leo', 'Jun', 'Ren'],
  'zh-TW': ['美玲', '凱文', '立行', '俊傑', '仁豪'],
  ja: ['美咲', '海斗', '蓮', '隼', '陽翔'],
};

/** A latitude of its own for each group of members, two degrees (222 km) from the next: a
 *  language's walk or a point's pair meets only its own members. */
let places = 0;
const newPlace = () => 25.0412 + 2 * ++places;

/** Years since `birthday` (YYYY-MM-DD) today in Taipei, as the app shows an age. */
function ageOf(birthday) {
  const [y, m, d] = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Taipei' }).format(new Date()).split('-').map(Number);
  const [by, bm, bd] = birthday.split('-').map(Number);
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}

describe('every screen accessible, in each language', () => {
  const server = new KizunaServer();
  let browser;
  let reviewerAuth;

  before(async () => {
    if (SCREENSHOTS) ensureScreenshotDir();
    await server.start();
    browser = await launchBrowser();
    reviewerAuth = await reviewer(server, 'Axe Reviewer');
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  const api = async (auth, path, method = 'GET', body) => {
    const r = await server.json(path, { method, headers: auth, ...(body ? { body: JSON.stringify(body) } : {}) });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  /** `who`'s member id as `viewer` sees it among today's introductions. */
  const idIn = async (viewer, nickname) => (await api(viewer, '/api/introductions')).introductions.find((i) => i.member.nickname === nickname).member.memberId;
  /** The profile ids of the queue, by nickname. */
  const queued = async () => Object.fromEntries((await api(reviewerAuth, '/api/review/queue')).items.map((i) => [i.nickname, i.profileId]));
  /** A reviewer's decision on profile `id`. */
  const decide = async (id, action, reasons = []) => {
    const view = await api(reviewerAuth, `/api/review/profiles/${id}`);
    await api(reviewerAuth, `/api/review/profiles/${id}/decision`, 'POST', { action, reasons, version: view.version });
  };

  for (const [lang, locale] of Object.entries(LOCALES)) {
    it(`${lang}: every screen of a new member, an approved member and a reviewer, at 390×844 and 320×640`, async () => {
      const t = messages[lang];
      const routes = new Set();
      const dialogs = new Set();
      /** The screen as it is, at the phone's size and at 320 px. */
      const both = async (page, what) => {
        await page.setViewportSize(PHONE);
        await checkScreen(page, `${what} (${lang}, 390×844)`);
        await page.setViewportSize(NARROW);
        await checkScreen(page, `${what} (${lang}, 320×640)`);
        await page.setViewportSize(PHONE);
        const shown = await page.evaluate(() => ({ route: document.getElementById('main')?.dataset.route, dialogs: [...document.querySelectorAll('dialog[open]')].map((d) => d.dataset.testid) }));
        routes.add(shown.route);
        for (const d of shown.dialogs) dialogs.add(d);
      };
      const open = async (userId, path, ready) => {
        const session = await openAs(browser, server, userId, { locale });
        await session.page.goto(`${session.base}${path}`);
        await session.page.locator(ready).first().waitFor();
        return session;
      };
      const [meiName, kaiName, leoName, junName, renName] = NAMES[lang];

      // Members: five approved (her, and four men), then one left pending, one rejected, one
      // suspended, and one with nobody to meet.
      const here = newPlace();
      const mei = await registerByApi(server, { nickname: meiName, gender: 'FEMALE', matchGender: 'MALE', photos: 2, locale, latitude: here });
      const kai = await registerByApi(server, { nickname: kaiName, gender: 'MALE', matchGender: 'FEMALE', photos: 3, locale, latitude: here });
      const leo = await registerByApi(server, { nickname: leoName, gender: 'MALE', matchGender: 'FEMALE', locale, latitude: here });
      await registerByApi(server, { nickname: junName, gender: 'MALE', matchGender: 'FEMALE', locale, latitude: here });
      await registerByApi(server, { nickname: renName, gender: 'MALE', matchGender: 'FEMALE', locale, latitude: here });
      const alone = await registerByApi(server, { nickname: `${junName}2`, gender: 'MALE', matchGender: 'MALE', locale, latitude: here });
      const suspended = await registerByApi(server, { nickname: `${leoName}3`, gender: 'MALE', matchGender: 'MALE', locale, latitude: here });
      const suspendedId = (await queued())[suspended.nickname];
      await approveAll(server, reviewerAuth);
      const pending = await registerByApi(server, { nickname: `${renName}4`, locale, latitude: here });
      const rejected = await registerByApi(server, { nickname: `${renName}5`, locale, latitude: here });
      const codes = (await server.json('/api/catalogue/codes')).body;
      await decide((await queued())[rejected.nickname], 'REJECT', [codes.reject[0].code]);
      await decide(suspendedId, 'SUSPEND', [codes.suspend[0].code]);
      // Kai liked her photo with a comment; she and Leo matched and wrote; she liked Jun.
      const meiId = await idIn(kai.auth, meiName);
      await api(kai.auth, `/api/introductions/${meiId}/like`, 'POST', { comment: { text: t['match.like'] + '!', photoName: mei.photos[0] } });
      await api(leo.auth, `/api/introductions/${await idIn(leo.auth, meiName)}/like`, 'POST');
      const match = (await api(mei.auth, `/api/introductions/${await idIn(mei.auth, leoName)}/like`, 'POST')).matchId;
      await api(leo.auth, `/api/matches/${match}/messages`, 'POST', { clientMessageId: crypto.randomUUID(), text: t['match.chat.placeholder'] });
      await api(mei.auth, `/api/matches/${match}/messages`, 'POST', { clientMessageId: crypto.randomUUID(), text: t['match.itsAMatch'] });
      await api(mei.auth, `/api/introductions/${await idIn(mei.auth, junName)}/like`, 'POST');
      const renId = await idIn(mei.auth, renName);

      // A visitor who is not a friend of the official account.
      const stranger = await server.mockUser({ friend: false });
      const friend = await open(stranger.userId, '/', '[data-testid="add-friend"]');
      await both(friend.page, 'the friend page');
      await friend.context.close();

      // A new member: every register step, the review with what is still missing, /dev with the
      // draft.
      const newcomer = await server.mockUser({ displayName: 'New' });
      const form = await open(newcomer.userId, '/', '[data-testid="register-welcome"]');
      await both(form.page, 'the welcome before step 1');
      await passWelcome(form.page);
      await form.page.locator('#register-step-title[data-step="basics"]').waitFor();
      await form.page.locator('[data-field="nickname"] input').fill(meiName);
      for (const step of STEPS) {
        await form.page.getByTestId(`step-${step}`).click();
        await form.page.locator(`#register-step-title[data-step="${step}"]`).waitFor();
        await form.page.locator('form .spinner').waitFor({ state: 'detached' });
        await both(form.page, `register: ${step}`);
      }
      await form.page.getByTestId('error-summary').waitFor();
      await form.page.goto(`${form.base}/dev`);
      await form.page.getByTestId('dev-draft').waitFor();
      await both(form.page, '/dev');
      await form.context.close();

      // A pending, a rejected (and the form that resubmits) and a suspended member's /profile.
      for (const [who, status] of [[pending, 'PENDING'], [rejected, 'REJECTED'], [suspended, 'SUSPENDED']]) {
        const s = await open(who.user.userId, '/profile', `[data-testid="review-status"][data-status="${status}"]`);
        await both(s.page, `/profile, ${status}`);
        if (status === 'REJECTED') {
          await s.page.getByTestId('edit-resubmit').click();
          await s.page.getByTestId('resubmit-reasons').waitFor();
          await both(s.page, 'the form of a resubmission');
        }
        await s.context.close();
      }

      // Nobody to meet: an empty /today, /likes and /matches; then on a break.
      const lonely = await open(alone.user.userId, '/today', '[data-testid="today-empty"]');
      await both(lonely.page, 'an empty /today');
      for (const [path, ready] of [['/likes', 'likes-empty'], ['/matches', 'matches-empty']]) {
        await lonely.page.goto(`${lonely.base}${path}`);
        await lonely.page.getByTestId(ready).waitFor();
        await both(lonely.page, `an empty ${path}`);
      }
      await api(alone.auth, '/api/user/pause', 'PUT', { paused: true });
      await lonely.page.goto(`${lonely.base}/today`);
      await lonely.page.getByTestId('today-paused').waitFor();
      await both(lonely.page, '/today on a break');
      await lonely.context.close();

      // The approved member's day: her cards, "It's a match", the likes, the matches, a chat and
      // its menu, a profile with its photo viewer, like sheet and safety dialogs, her /profile, the
      // help, a 404, signing out.
      const her = await open(mei.user.userId, '/today', '[data-testid="introduction"]');
      const { page, base } = her;
      const kaiCard = page.getByTestId('introduction').filter({ has: page.getByTestId('their-like') });
      await kaiCard.waitFor();
      await both(page, '/today');
      await kaiCard.getByTestId('like').click();
      await page.getByTestId('say-hello').waitFor();
      await both(page, "It's a match");
      await page.keyboard.press('Escape');
      await page.getByTestId('its-a-match').waitFor({ state: 'hidden' });

      await page.goto(`${base}/likes`);
      await page.getByTestId('likes-tab-received').waitFor();
      await page.locator('[data-testid="like-item"], [data-testid="likes-empty"]').first().waitFor();
      await both(page, '/likes, received');
      await page.getByTestId('likes-tab-sent').click();
      await page.getByTestId('likes-sent').waitFor();
      await both(page, '/likes, sent');

      await page.goto(`${base}/matches`);
      await page.getByTestId('match').first().waitFor();
      await both(page, '/matches');

      await page.goto(`${base}/chat?match=${match}`);
      await page.locator('[data-testid="chat-message"][data-mine="true"]').waitFor();
      await both(page, 'a chat');
      await page.getByTestId('chat-menu').click();
      await page.getByTestId('chat-menu-sheet').waitFor();
      await both(page, "the chat's menu");
      await page.getByTestId('menu-share-date').click();
      await page.getByTestId('share-date').waitFor();
      await both(page, 'share my date');
      await page.keyboard.press('Escape');
      await page.getByTestId('share-date').waitFor({ state: 'hidden' });
      await page.getByTestId('chat-menu').click();
      await page.getByTestId('chat-menu-sheet').waitFor();
      await page.getByTestId('menu-unmatch').click();
      await page.getByTestId('unmatch-dialog').waitFor();
      await both(page, 'the unmatch dialog');
      await page.keyboard.press('Escape');

      await page.goto(`${base}/member?id=${renId}`);
      await page.getByTestId('member-profile').waitFor();
      await both(page, "a member's profile");
      await page.locator('.photo-open').first().click();
      await page.getByTestId('photo-viewer-strip').waitFor();
      await both(page, 'the photo viewer');
      await page.keyboard.press('Escape');
      await page.getByTestId('photo-viewer').waitFor({ state: 'hidden' });
      await page.getByTestId('like-photo').first().click();
      await page.getByTestId('like-comment').waitFor();
      await both(page, 'the like sheet');
      await page.keyboard.press('Escape');
      await page.getByTestId('block').click();
      await page.getByTestId('block-confirm').waitFor();
      await both(page, 'the block dialog');
      await page.keyboard.press('Escape');
      await page.getByTestId('report').click();
      const report = page.getByTestId('report-dialog');
      await report.locator('input[type="radio"]').first().waitFor();
      await both(page, 'the report dialog');
      await report.locator('input[type="radio"]').first().check();
      await page.getByTestId('report-confirm').click();
      await page.waitForURL(/\/matches$/);

      await page.goto(`${base}/profile`);
      await page.locator('[data-testid="review-status"][data-status="APPROVED"]').waitFor();
      await both(page, '/profile, APPROVED');
      await page.getByTestId('open-settings').click();
      await page.getByTestId('settings-page').waitFor();
      await page.getByTestId('pause').and(page.locator('[data-state="off"]')).waitFor();
      await both(page, '/settings, APPROVED');

      await page.goto(`${base}/help`);
      await page.getByTestId('help-index').waitFor();
      await both(page, 'the help');
      for (const topic of ['guidelines', 'safety', 'verified', 'corrections', 'terms', 'privacy']) {
        await page.goto(`${base}/help?topic=${topic}`);
        await page.locator(`[data-testid="help-topic"][data-topic="${topic}"]`).waitFor();
        await both(page, `the help: ${topic}`);
      }

      await page.goto(`${base}/nowhere`);
      await page.locator('.error-page').waitFor();
      await both(page, 'a 404');

      await page.goto(`${base}/settings`);
      await page.getByTestId('sign-out').click();
      await page.getByTestId('sign-in-again').waitFor();
      await both(page, 'signed out');
      await her.context.close();

      // The reviewer's console on the phone: the queue, a profile in it, the reports.
      const reviewerUser = await server.mockUser({ displayName: 'Reviewer' });
      await server.json('/__mock/reviewers', { method: 'POST', body: JSON.stringify({ userId: reviewerUser.userId }) });
      const desk = await open(reviewerUser.userId, '/review', '[data-testid="queue-item"]');
      await both(desk.page, 'the review queue');
      await desk.page.getByTestId('queue-item').first().click();
      await desk.page.getByTestId('review-detail').waitFor();
      await both(desk.page, 'a profile in review');
      await desk.page.getByTestId('tab-reports').click();
      await desk.page.locator('[data-testid="report"]').first().waitFor();
      await both(desk.page, 'the reports');
      await desk.context.close();
      // What the console claimed is let go, for the next reviewer (the next walk approves it).
      const deskAuth = await bearer(server, reviewerUser.userId);
      for (const item of (await api(deskAuth, '/api/review/queue')).items) await server.json(`/api/review/profiles/${item.profileId}/claim`, { method: 'DELETE', headers: deskAuth });

      assert.deepEqual([...routes].sort(), [...ROUTES, 'error'].sort(), `${lang}: every route, and the error page, checked`);
      assert.deepEqual([...dialogs].sort(), [...DIALOGS].sort(), `${lang}: every dialog checked`);
    });
  }

  /** Two approved members, `who` and `whom`, today's introductions of each other; `liked`: whom
   *  liked who already. */
  async function pair(who, whom, { liked = false, photos = 2 } = {}) {
    const latitude = newPlace();
    const a = await registerByApi(server, { nickname: who, gender: 'FEMALE', matchGender: 'MALE', latitude });
    const b = await registerByApi(server, { nickname: whom, gender: 'MALE', matchGender: 'FEMALE', photos, latitude });
    await approveAll(server, reviewerAuth);
    const bId = await idIn(a.auth, whom);
    if (liked) await api(b.auth, `/api/introductions/${await idIn(b.auth, who)}/like`, 'POST');
    return { a, b, bId };
  }

  const focused = (page) => page.evaluate(() => {
    const a = document.activeElement;
    return a === document.body || !a ? 'body' : a.dataset.testid || a.id || a.tagName.toLowerCase();
  });

  /** Waits (5 s at most) for the focus to reach `testId`, then says where it is if it never did. */
  const focusOn = async (page, testId) => {
    await page.waitForFunction((id) => document.activeElement?.dataset?.testid === id, testId, { timeout: 5_000 }).catch(() => {});
    assert.equal(await focused(page), testId);
  };

  it("5: \"It's a match\" opens on the first message and gives the focus back to the card; the report dialog opens on its title, not in its text box", async () => {
    const { a, bId } = await pair('Aya', 'Bo', { liked: true });
    const { page, base, context } = await openAs(browser, server, a.user.userId);
    await page.goto(`${base}/today`);
    const card = page.locator(`[data-testid="introduction"][data-member-id="${bId}"]`);
    await card.getByTestId('like').focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByTestId('its-a-match');
    await dialog.waitFor();
    assert.equal(await focused(page), 'first-message', 'the first focus is the message, not "Later"');
    // The news is read with the title.
    assert.equal(await dialog.evaluate((d) => document.getElementById(d.getAttribute('aria-describedby'))?.textContent), 'You and Bo like each other.');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // The Like button that opened it is gone: the focus is on what took its place (the way into
    // the chat: a match leaves discovery), not the page.
    // The card becomes the chat's way in once /today is read again: the focus follows it there.
    await focusOn(page, 'open-chat');
    assert.equal(await card.getByTestId('open-chat').evaluate((el) => el === document.activeElement), true);
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, 'today-focus-after-match.png') });

    // The same on her profile: the focus goes to "Send a message" in the dock.
    const { a: c, bId: dId } = await pair('Cho', 'Dan', { liked: true });
    const other = await openAs(browser, server, c.user.userId);
    await other.page.goto(`${other.base}/member?id=${dId}`);
    await other.page.locator('.action-dock [data-testid="like"]').focus();
    await other.page.keyboard.press('Enter');
    await other.page.getByTestId('its-a-match').waitFor();
    assert.equal(await focused(other.page), 'first-message');
    await checkScreen(other.page, "It's a match over a profile");
    await other.page.keyboard.press('Escape');
    await other.page.getByTestId('its-a-match').waitFor({ state: 'hidden' });
    await focusOn(other.page, 'open-chat');
    await other.context.close();

    // The report dialog: its reasons in view, the focus on its title; the phone's keyboard stays
    // closed until the member goes to the text box.
    await page.goto(`${base}/member?id=${bId}`);
    await page.getByTestId('report').click();
    const report = page.getByTestId('report-dialog');
    await report.locator('input[type="radio"]').first().waitFor();
    assert.equal(await focused(page), 'report-dialog-title');
    assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), 'TEXTAREA');
    await context.close();
  });

  it('6: with reduced motion asked for, the toast, the register progress bar and the photo viewer do not move', async () => {
    const { a, bId } = await pair('Eri', 'Fin', { photos: 3 });
    /** The animations and transitions running now that take time. */
    const moving = (page) => page.evaluate(() => document.getAnimations().filter((x) => x.playState === 'running' && (x.effect?.getComputedTiming().duration ?? 0) > 0).map((x) => `${x.effect?.target?.className}: ${x.animationName ?? x.transitionProperty}`));
    /** The photo viewer's strip on Next, read in the page so that no round trip to the test lies
     *  between the click and the reading (a loaded machine let a glide end before one came back):
     *  where the click leaves it (a window listener runs after the app's own handler, in the same
     *  task: a jump is done by then, a glide has not begun, as Chromium steps a smooth scroll on
     *  later frames), each place its scroll events report on the way, and its width. */
    const afterNext = async ({ page, base }) => {
      await page.goto(`${base}/member?id=${bId}`);
      await page.locator('.photo-open').first().click();
      const strip = page.getByTestId('photo-viewer-strip');
      await strip.waitFor();
      await strip.evaluate((el) => {
        const seen = { atClick: null, passed: [], width: el.clientWidth, start: el.scrollLeft };
        window.__stripOnNext = seen;
        el.addEventListener('scroll', () => seen.passed.push(el.scrollLeft));
        window.addEventListener('click', () => (seen.atClick = el.scrollLeft), { once: true });
      });
      await page.getByTestId('photo-viewer-next').click();
      // At rest on the second photo, however long the glide takes, and its scroll event come (a
      // jump's fires on the next frame: read before it, `passed` was empty in a CI run).
      await page.waitForFunction(() => Math.abs(document.querySelector('[data-testid="photo-viewer-strip"]').scrollLeft - window.__stripOnNext.width) < 1 && window.__stripOnNext.passed.length > 0);
      const seen = await page.evaluate(() => window.__stripOnNext);
      await page.keyboard.press('Escape');
      assert.equal(seen.start, 0, 'the viewer opens on the first photo');
      assert.ok(seen.width > 0);
      return seen;
    };

    // Without the setting the strip glides: the click leaves it where it was, and it gets there
    // later (this test can tell the two apart)...
    const moves = await openAs(browser, server, a.user.userId);
    const glide = await afterNext(moves);
    assert.equal(glide.atClick, 0, `a glide starts after the click: ${JSON.stringify(glide)}`);
    await moves.context.close();

    // ...and with it, it is on the next photo before the click's task ends, and passes nothing on
    // the way.
    const still = await openAs(browser, server, a.user.userId, { reducedMotion: 'reduce' });
    const { page, base } = still;
    const jump = await afterNext(still);
    assert.equal(jump.atClick, jump.width, `on the second photo at once: ${JSON.stringify(jump)}`);
    assert.deepEqual([...new Set(jump.passed)], [jump.width], `no place between the two photos: ${JSON.stringify(jump)}`);

    // A toast comes at once, and the page makes room for it without a slide.
    await page.goto(`${base}/member?id=${bId}`);
    await page.getByTestId('block').click();
    await page.getByTestId('block-confirm').click();
    // Read in the page on the first frame that shows the toast: it closes itself after 3 s, and
    // round trips on a loaded machine can take that long.
    const toast = await (
      await page.waitForFunction(() => {
        const el = document.querySelector('[data-testid="toast-success"]');
        if (!el) return null;
        const moving = document.getAnimations().filter((x) => x.playState === 'running' && (x.effect?.getComputedTiming().duration ?? 0) > 0).map((x) => `${x.effect?.target?.className}: ${x.animationName ?? x.transitionProperty}`);
        return { moving, animation: getComputedStyle(el).animationDuration, transition: getComputedStyle(el).transitionDuration, page: getComputedStyle(document.querySelector('.app-main')).transitionDuration };
      })
    ).jsonValue();
    assert.deepEqual(toast, { moving: [], animation: '0s', transition: '0s', page: '0s' });
    await still.context.close();

    // The register progress bar steps without a slide.
    const newcomer = await server.mockUser();
    const form = await openAs(browser, server, newcomer.userId, { reducedMotion: 'reduce' });
    await form.page.goto(`${form.base}/`);
    await passWelcome(form.page);
    await form.page.locator('#register-step-title[data-step="basics"]').waitFor();
    await form.page.getByTestId('step-work').click();
    await form.page.locator('#register-step-title[data-step="work"]').waitFor();
    assert.equal(await form.page.locator('.progress span').evaluate((el) => getComputedStyle(el).transitionDuration), '0s');
    assert.deepEqual(await moving(form.page), []);
    await form.context.close();
  });

  it('7: at 320 px the review’s errors read one a row in step order, Japanese breaks between phrases, the likes tabs stay on one line and the report confirm is in view', async () => {
    const en = messages.en;
    // The review of an empty form: each error a row, its step and field on one line, in the
    // order of the steps.
    const newcomer = await server.mockUser();
    const form = await openAs(browser, server, newcomer.userId, { viewport: NARROW });
    await form.page.goto(`${form.base}/`);
    await passWelcome(form.page);
    await form.page.locator('#register-step-title[data-step="basics"]').waitFor();
    await form.page.getByTestId('step-review').click();
    const summary = form.page.getByTestId('error-summary');
    await summary.waitFor();
    const rows = await summary.locator('.error-link').evaluateAll((links) => links.map((l) => {
      const where = l.querySelector('strong');
      const lines = new Set([...where.getClientRects()].map((r) => Math.round(r.top))).size;
      return { where: where.textContent, lines, left: Math.round(where.getBoundingClientRect().left - l.getBoundingClientRect().left) };
    }));
    assert.ok(rows.length >= 8, `the empty form's errors: ${rows.length}`);
    const order = rows.map((r) => STEPS.findIndex((s) => r.where.startsWith(en[`register.step.${s}`])));
    assert.deepEqual(order, [...order].sort((x, y) => x - y), `in step order: ${rows.map((r) => r.where).join(' | ')}`);
    assert.ok(!order.includes(-1));
    for (const r of rows) {
      assert.equal(r.lines, 1, `"${r.where}" on one line`);
      assert.equal(r.left, 0, `"${r.where}" starts its row`);
    }
    if (SCREENSHOTS) await form.page.screenshot({ path: join(SCREENSHOT_DIR, 'register-review-errors-320.png') });
    await form.context.close();

    // Japanese: the words stay whole (プロフィール broke as プロフィー / ル).
    const { a, bId } = await pair('Gin', 'Hal', { liked: true });
    const { page, base, context } = await openAs(browser, server, a.user.userId, { locale: 'ja-JP', viewport: NARROW });
    await page.goto(`${base}/profile`);
    await page.locator('[data-testid="review-status"][data-status="APPROVED"]').waitFor();
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).wordBreak), 'auto-phrase');
    const broken = await page.evaluate((word) => {
      const out = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (let at = n.textContent.indexOf(word); at >= 0; at = n.textContent.indexOf(word, at + 1)) {
          const range = document.createRange();
          range.setStart(n, at);
          range.setEnd(n, at + word.length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) out.push(n.parentElement.outerHTML.slice(0, 80));
        }
      }
      return out;
    }, 'プロフィール');
    assert.deepEqual(broken, [], 'プロフィール is never split over two lines');

    // The likes tabs in Japanese: each label on one line, whole.
    await page.goto(`${base}/likes`);
    const tabs = page.getByRole('tablist');
    await page.getByTestId('likes-tab-received').waitFor();
    assert.deepEqual(await layoutProblems(tabs), []);
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, 'likes-320-ja.png') });

    // The report dialog at 320×640: the confirm button in view and uncovered with the dialog as it
    // opens, the reasons scrolling under it.
    await page.goto(`${base}/member?id=${bId}`);
    await page.getByTestId('report').click();
    await page.getByTestId('report-dialog').locator('input[type="radio"]').first().waitFor();
    const confirm = await page.getByTestId('report-confirm').evaluate((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return { bottom: r.bottom, height: innerHeight, hit: el === hit || el.contains(hit) };
    });
    assert.ok(confirm.bottom <= confirm.height && confirm.hit, `the confirm in view: ${JSON.stringify(confirm)}`);
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, 'report-dialog-320-ja.png') });
    await checkScreen(page, 'the report dialog at 320×640 in Japanese');
    await context.close();
  });

  it('the accessibility tree names a card, a photo and a chat message as they show', async () => {
    const { a, b } = await pair('Ivy', 'Jay');
    const age = ageOf('1994-07-21');
    const { page, base, context } = await openAs(browser, server, b.user.userId);
    const ivyId = await idIn(b.auth, 'Ivy');
    await page.goto(`${base}/today`);
    const card = page.locator(`[data-testid="introduction"][data-member-id="${ivyId}"]`);
    await card.waitFor();
    // The city's name comes with the catalogues (the wasm core), which may load after the card:
    // until then the card shows the city's code.
    await card.getByText(`${age} · Taipei City`).first().waitFor();
    assert.equal(await card.ariaSnapshot(), [
      '- listitem:',
      '  - article "Ivy":',
      `    - link "Ivy ${age} · Taipei City":`,
      `      - /url: /member?id=${ivyId}`,
      '      - heading "Ivy" [level=2]',
      `      - paragraph: ${age} · Taipei City`,
      // Pass and Like right under the photo (on a small phone, before the facts).
      '    - button "Pass on Ivy": Pass',
      '    - button "Like Ivy": Like',
      '    - paragraph: Under 5 km',
      '    - paragraph: Software engineering · Product designer',
      '    - text: Verified',
    ].join('\n'));

    await page.goto(`${base}/member?id=${ivyId}`);
    const photo = page.getByTestId('member-photo').first();
    await photo.waitFor();
    await photo.getByText(`${age} · Taipei City`).first().waitFor();
    assert.equal(await photo.ariaSnapshot(), [
      '- figure:',
      '  - button "Open photo 1 of Ivy":',
      '    - img "Photo 1 of Ivy"',
      '  - heading "Ivy" [level=2]',
      `  - paragraph: ${age} · Taipei City`,
      '  - button "Like photo 1"',
    ].join('\n'));

    await api(a.auth, `/api/introductions/${await idIn(a.auth, 'Jay')}/like`, 'POST');
    const match = (await api(b.auth, `/api/introductions/${ivyId}/like`, 'POST')).matchId;
    await api(a.auth, `/api/matches/${match}/messages`, 'POST', { clientMessageId: crypto.randomUUID(), text: 'Coffee on Sunday?' });
    await page.goto(`${base}/chat?match=${match}`);
    const message = page.getByTestId('chat-message').filter({ hasText: 'Coffee on Sunday?' });
    await message.waitFor();
    // The other member's name comes with the match list, which may answer after the messages:
    // until then the line says "… wrote:".
    await message.getByText('Ivy wrote:').waitFor({ state: 'attached' });
    const time = await message.locator('time').innerText();
    // Who wrote it is said, not only shown by the side it is on.
    assert.equal(await message.ariaSnapshot(), ['- listitem:', '  - text: "Ivy wrote:"', '  - paragraph: Coffee on Sunday?', '  - paragraph:', `    - time: ${time}`].join('\n'));
    await page.getByTestId('chat-input').fill('Sunday works.');
    await page.getByTestId('chat-send').click();
    const mine = page.locator('[data-testid="chat-message"][data-delivery="sent"]').filter({ hasText: 'Sunday works.' });
    await mine.waitFor();
    const sentAt = await mine.locator('time').innerText();
    assert.equal(await mine.ariaSnapshot(), ['- listitem:', '  - text: "You wrote:"', '  - paragraph: Sunday works.', '  - paragraph:', `    - time: ${sentAt}`].join('\n'));
    await checkScreen(page, 'a chat with a message of each');
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, 'chat-own-time.png') });
    await context.close();
  });
});
