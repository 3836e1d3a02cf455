// End to end: the edges a member still tripped on. A match leaves discovery (its card on
// /today offers only the chat, and the count of those left goes down); "It's a match" shows both
// photos and opens on the first message, which it sends; /likes has a badge, says what was liked
// and answers a like in place; the profile page has one entry to /settings, whose settings are
// switches; a newcomer is welcomed before step 1; the report dialog's reasons are one choice. Each
// changed screen is checked by axe in English, Traditional Chinese and Japanese, and shot at
// 390×844 and 320×640.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, checkScreen, ensureScreenshotDir, launchBrowser, openAs } from './harness.mjs';
import { approveAll, bearer, registerByApi } from './members.mjs';
import { passWelcome } from './register-flow.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';
const PHONE = { width: 390, height: 844 };
const SMALL = { width: 320, height: 640 };
const LOCALES = [['en', 'en-US'], ['zh-TW', 'zh-TW'], ['ja', 'ja-JP']];

/** The screen at 390×844 and at 320×640, as `<name>.png` and `<name>-320.png`. */
async function shots(page, name) {
  if (!SCREENSHOTS) return;
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
  await page.setViewportSize(SMALL);
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-320.png`) });
  await page.setViewportSize(PHONE);
}

const card = (page, name) => page.getByTestId('introduction').filter({ has: page.getByTestId('member-nickname').filter({ hasText: name }) });

describe('The edges a member still trips on', () => {
  const server = new KizunaServer();
  let browser;
  const ids = {};
  const auth = {};
  const registered = {};

  async function apiLike(who, whom, body) {
    const r = await server.json(`/api/introductions/${ids[whom]}/like`, { method: 'POST', headers: auth[who], ...(body ? { body: JSON.stringify(body) } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  }

  before(async () => {
    if (SCREENSHOTS) ensureScreenshotDir();
    await server.start();
    browser = await launchBrowser();
    for (const [name, gender, matchGender] of [['Mei', 'FEMALE', 'MALE'], ['Kai', 'MALE', 'FEMALE'], ['Ren', 'MALE', 'FEMALE'], ['Leo', 'MALE', 'FEMALE']]) {
      registered[name] = await registerByApi(server, { nickname: name, gender, matchGender, photos: name === 'Mei' ? 3 : 2 });
    }
    assert.equal(await approveAll(server), 4);
    // Mei's list first (the three men), then theirs (Mei).
    for (const name of ['Mei', 'Kai', 'Ren', 'Leo']) {
      auth[name] = await bearer(server, registered[name].user.userId);
      const list = await server.json('/api/introductions', { headers: auth[name] });
      for (const i of list.body.introductions) ids[i.member.nickname] = i.member.memberId;
    }
    // Kai likes Mei's second photo; Ren likes her answer to "Mountains or the sea".
    await apiLike('Kai', 'Mei', { comment: { text: 'Where was this taken?', photoName: registered.Mei.photos[1] } });
    await apiLike('Ren', 'Mei', { comment: { text: 'The sea, always!', answer: 'DATING_QUESTION' } });
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  it('a match leaves /today: its card offers only the chat, the count left goes down, and "It\'s a match" sends the first message', async () => {
    const mei = await openAs(browser, server, registered.Mei.user.userId);
    const { page, base } = mei;
    await page.goto(`${base}/today`);
    await card(page, 'Kai').waitFor();
    assert.equal(await page.getByTestId('today-left').innerText(), '3 left today');
    // Two likes wait: the Likes tab says so.
    assert.equal(await page.getByTestId('nav-badge-likes').innerText(), '2');
    await checkScreen(page, '/today');
    // At 320×640, Like and Pass of the first card are on screen without scrolling past its photo.
    await page.setViewportSize(SMALL);
    const reach = await page.getByTestId('introduction').first().getByTestId('like').evaluate((el) => {
      const r = el.getBoundingClientRect();
      const nav = document.querySelector('[data-testid="bottom-nav"]').getBoundingClientRect();
      return { bottom: r.bottom, navTop: nav.top };
    });
    assert.ok(reach.bottom <= reach.navTop, `Like above the bottom navigation at 320×640: ${JSON.stringify(reach)}`);
    await page.setViewportSize(PHONE);
    await shots(page, 'today-left');

    await card(page, 'Kai').getByTestId('like').click();
    const sheet = page.getByTestId('its-a-match');
    await sheet.getByTestId('first-message').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'first-message', 'the first focus is on the message');
    assert.equal(await sheet.locator('.match-photos img').count(), 2, 'both photos');
    await checkScreen(page, "It's a match");
    await shots(page, 'its-a-match');
    await sheet.getByTestId('first-message').fill('Hi Kai! It was taken in Jiufen.');
    await sheet.getByTestId('say-hello').click();
    await page.waitForURL(/\/chat\?match=\d+$/);
    await page.locator('[data-testid="chat-message"][data-delivery="sent"]').filter({ hasText: 'taken in Jiufen' }).waitFor();
    await checkScreen(page, 'the chat after the first message');
    const matchId = Number(new URL(page.url()).searchParams.get('match'));

    // Back on /today: Kai's card offers the chat and nothing else; two are left.
    await page.goto(`${base}/today`);
    const kai = card(page, 'Kai');
    await kai.getByTestId('open-chat').waitFor();
    assert.equal(await kai.getAttribute('data-offer'), 'CHAT');
    assert.equal(await kai.getByTestId('like').count(), 0);
    assert.equal(await kai.getByTestId('pass').count(), 0);
    assert.equal(await kai.getByTestId('liked').count(), 0);
    assert.equal(await page.getByTestId('today-left').innerText(), '2 left today');
    assert.equal(await kai.getByTestId('open-chat').getAttribute('href'), `/chat?match=${matchId}`);
    await checkScreen(page, '/today with a match');
    await shots(page, 'today-matched');
    // Kai reads her message.
    const theirs = await server.json(`/api/matches/${matchId}/messages`, { headers: auth.Kai });
    assert.deepEqual(theirs.body.messages.map((m) => m.text), ['Hi Kai! It was taken in Jiufen.']);
    await mei.context.close();
  });

  it('/likes says what was liked and answers a like in place: Like back makes the match', async () => {
    const mei = await openAs(browser, server, registered.Mei.user.userId);
    const { page, base } = mei;
    await page.goto(`${base}/likes`);
    const ren = page.getByTestId('likes-received').getByTestId('like-item').filter({ hasText: 'Ren' });
    await ren.waitFor();
    // Kai's like became a match: it left "Liked you"; Ren's waits, on her answer, in her words.
    assert.deepEqual(await page.getByTestId('likes-received').getByTestId('member-nickname').allInnerTexts(), ['Ren']);
    assert.equal(await ren.getByTestId('like-about-answer').innerText(), 'Mountains or the sea, and why?');
    assert.match(await ren.getByTestId('like-about').innerText(), /On your answer to/);
    assert.equal(await page.getByTestId('nav-badge-likes').innerText(), '1');
    await checkScreen(page, '/likes with Like and Pass');
    await shots(page, 'likes-answer');

    await ren.getByTestId('like').click();
    const sheet = page.getByTestId('its-a-match');
    await sheet.getByTestId('first-message').waitFor();
    await checkScreen(page, "It's a match from /likes");
    await sheet.getByTestId('see-matches').click();
    await page.waitForURL(/\/matches$/);
    await page.getByTestId('match').filter({ hasText: 'Ren' }).waitFor();
    await checkScreen(page, '/matches');
    assert.equal(await page.getByTestId('nav-badge-likes').count(), 0, 'no like waits now');
    const likes = await server.json('/api/likes', { headers: auth.Mei });
    assert.deepEqual(likes.body.received, []);
    await mei.context.close();
  });

  it('the settings are one entry away from /profile, as switches, in three languages; the help leads back', async () => {
    for (const [lang, locale] of LOCALES) {
      const s = await openAs(browser, server, registered.Leo.user.userId, { locale });
      const { page, base } = s;
      await page.goto(`${base}/profile`);
      await page.locator('[data-testid="review-status"][data-status="APPROVED"]').waitFor();
      assert.equal(await page.getByTestId('pause').count(), 0, 'no setting on the profile page');
      await checkScreen(page, `/profile (${lang})`);
      if (lang === 'en') await shots(page, 'profile-page');
      await page.getByTestId('open-settings').click();
      await page.waitForURL(/\/settings$/);
      await page.locator('[data-testid="pause"][data-state="off"]').waitFor();
      await page.locator('[data-testid="morning-push"][data-state="on"]').waitFor();
      assert.equal(await page.getByRole('switch').count(), 5, 'break, colleagues and three pushes');
      await checkScreen(page, `/settings (${lang})`);
      if (lang === 'en') {
        await shots(page, 'settings');
        // A switch saves at once and stays after a reload.
        await page.getByTestId('pause').click();
        await page.locator('[data-testid="pause"][data-state="on"]').waitFor();
        await page.reload();
        await page.locator('[data-testid="pause"][data-state="on"]').waitFor();
        await page.getByTestId('pause').click();
        await page.locator('[data-testid="pause"][data-state="off"]').waitFor();
        // The help, from the settings, and its way back.
        await page.getByTestId('profile-help').click();
        await page.getByTestId('help-index').waitFor();
        await checkScreen(page, 'the help');
        await page.getByTestId('help-leave').click();
        await page.waitForURL(/\/settings$/);
        await page.getByTestId('settings-back').click();
        await page.waitForURL(/\/profile$/);
      }
      await s.context.close();
    }
  });

  it('a member\'s profile: the tags grouped as the form asks them, the hearts clear of the headings; the report dialog is one choice in the colour of a serious action', async () => {
    const leo = await openAs(browser, server, registered.Leo.user.userId);
    const { page, base } = leo;
    await page.goto(`${base}/member?id=${ids.Mei}`);
    await page.getByTestId('member-profile').waitFor();
    // Each answer's heart keeps clear of its heading.
    for (const answer of await page.getByTestId('member-answer').all()) {
      const [heading, heart] = await Promise.all([answer.locator('h2').boundingBox(), answer.getByTestId('like-answer').boundingBox()]);
      const overlap = heading.x < heart.x + heart.width && heart.x < heading.x + heading.width && heading.y < heart.y + heart.height && heart.y < heading.y + heading.height;
      assert.ok(!overlap || (await answer.locator('h2').evaluate((h) => {
        const s = getComputedStyle(h);
        return h.getBoundingClientRect().right - parseFloat(s.paddingRight);
      })) <= heart.x, 'the heading\'s words end before the heart');
    }
    const tags = page.getByTestId('member-tags');
    await tags.scrollIntoViewIfNeeded();
    assert.deepEqual(await tags.locator('h3').allInnerTexts(), ['Personality', 'Exercise', 'Hobbies', 'Marriage you imagine', 'Pets']);
    await checkScreen(page, "a member's profile");
    await shots(page, 'member-profile-tags');

    await page.getByTestId('report').click();
    const dialog = page.getByTestId('report-dialog');
    await dialog.locator('input[type="radio"]').first().waitFor();
    assert.equal(await dialog.locator('input[type="checkbox"]').count(), 0);
    // One choice: a second row replaces the first.
    const rows = dialog.locator('.mm-reason');
    await rows.nth(0).click();
    await rows.nth(1).click();
    assert.equal(await dialog.locator('input[type="radio"]:checked').count(), 1);
    assert.ok((await rows.nth(1).boundingBox()).height >= 48, 'a large row');
    const colour = await page.getByTestId('report-confirm').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(colour, 'rgb(180, 35, 24)', 'the colour of a serious action');
    await checkScreen(page, 'the report dialog');
    await shots(page, 'report-dialog');
    await leo.context.close();
  });

  it('the changed screens in zh-TW and ja: /today, "It\'s a match", /likes, a profile\'s tags and the report dialog', async () => {
    // Leo: his list has Mei, who has not answered him; the like back he gets is his match.
    for (const [lang, locale] of LOCALES.slice(1)) {
      const s = await openAs(browser, server, registered.Leo.user.userId, { locale });
      const { page, base } = s;
      await page.goto(`${base}/today`);
      await page.getByTestId('introduction').first().waitFor();
      await page.getByTestId('today-left').waitFor();
      await checkScreen(page, `/today (${lang})`);
      await page.goto(`${base}/likes`);
      await page.getByTestId('likes-tab-received').waitFor();
      await page.locator('[data-testid="like-item"], [data-testid="likes-empty"]').first().waitFor();
      await checkScreen(page, `/likes (${lang})`);
      await page.goto(`${base}/member?id=${ids.Mei}`);
      await page.getByTestId('member-profile').waitFor();
      const groups = page.getByTestId('member-tags').locator('.tag-group');
      await groups.first().waitFor();
      assert.deepEqual(await groups.evaluateAll((g) => g.map((x) => x.dataset.group)), ['personalityTagIds', 'exerciseTagIds', 'hobbyTagIds', 'marriageTypeTagIds', 'petTagIds']);
      await checkScreen(page, `a member's profile (${lang})`);
      await page.getByTestId('report').click();
      const dialog = page.getByTestId('report-dialog');
      await dialog.locator('input[type="radio"]').first().waitFor();
      await checkScreen(page, `the report dialog (${lang})`);
      await page.keyboard.press('Escape');
      await s.context.close();
    }
    // Mei likes Leo back in Japanese: the match sheet in Japanese.
    await apiLike('Leo', 'Mei');
    const ja = await openAs(browser, server, registered.Mei.user.userId, { locale: 'ja-JP' });
    await ja.page.goto(`${ja.base}/likes`);
    const leo = ja.page.getByTestId('like-item').filter({ hasText: 'Leo' });
    await leo.getByTestId('like').click();
    await ja.page.getByTestId('first-message').waitFor();
    await checkScreen(ja.page, "It's a match (ja)");
    await ja.page.keyboard.press('Escape');
    await ja.context.close();
  });

  it('an approved member edits one section in place, previews it as others see it, and saves it for review', async () => {
    for (const [lang, locale] of LOCALES) {
      const s = await openAs(browser, server, registered.Kai.user.userId, { locale });
      const { page, base } = s;
      await page.goto(`${base}/profile`);
      await page.getByTestId('edit-section-about').waitFor();
      if (lang === 'en') {
        // The approved profile, as others see it, from /profile.
        await page.getByTestId('profile-preview-toggle').click();
        await page.getByTestId('profile-preview').waitFor();
        assert.match(await page.getByTestId('profile-preview').innerText(), /Kai/);
        assert.doesNotMatch(await page.getByTestId('profile-preview').innerText(), /Secretname|Secret Lane|Secret University/);
        await checkScreen(page, '/profile with the preview');
      }
      await page.getByTestId('edit-section-about').click();
      await page.waitForURL(/\/register\?section=about$/);
      await page.locator('[data-testid="edit-section"][data-section="about"]').waitFor();
      await page.locator('[data-field="aboutMe"] textarea').waitFor();
      // One section, no wizard: no step list, no Next.
      assert.equal(await page.locator('.stepper').count(), 0);
      assert.equal(await page.getByTestId('next').count(), 0);
      await checkScreen(page, `editing the about section (${lang})`);
      if (lang !== 'en') {
        await page.getByTestId('edit-cancel').click();
        await page.waitForURL(/\/profile$/);
        await s.context.close();
        continue;
      }
      await page.locator('[data-field="aboutMe"] textarea').fill('Weekends are for sailing now, and the odd sourdough.');
      await page.getByTestId('edit-preview-toggle').click();
      const preview = page.getByTestId('profile-preview');
      await preview.waitFor();
      assert.match(await preview.innerText(), /sailing now/);
      await checkScreen(page, 'editing a section, with the preview');
      await page.getByTestId('edit-preview-toggle').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await shots(page, 'edit-section');
      await page.getByTestId('edit-save').click();
      await page.waitForURL(/\/profile$/, { timeout: 30_000 });
      await page.locator('[data-testid="revision-status"][data-status="PENDING"]').waitFor();
      const info = await server.json('/api/user/my-info', { headers: auth.Kai });
      assert.deepEqual(info.body.revision.changedFields, ['aboutMe']);
      assert.equal(info.body.revision.profile.aboutMe, 'Weekends are for sailing now, and the odd sourdough.');
      await checkScreen(page, '/profile with a revision waiting');
      await s.context.close();
    }
  });

  it('the review step of the register form previews the profile, photos as photos', async () => {
    const user = await server.mockUser({ displayName: 'Preview' });
    const s = await openAs(browser, server, user.userId);
    await s.page.goto(`${s.base}/register`);
    await passWelcome(s.page);
    await s.page.locator('[data-field="nickname"] input').fill('Yuki');
    await s.page.getByTestId('step-review').click();
    await s.page.locator('#register-step-title[data-step="review"]').waitFor();
    const preview = s.page.getByTestId('profile-preview');
    await preview.waitFor();
    assert.match(await preview.innerText(), /Yuki/);
    await checkScreen(s.page, 'the review step with the preview');
    await s.context.close();
  });

  it('a newcomer is welcomed before step 1, in three languages, and Start opens the form', async () => {
    for (const [lang, locale] of LOCALES) {
      const user = await server.mockUser({ displayName: `New ${lang}` });
      const s = await openAs(browser, server, user.userId, { locale });
      await s.page.goto(`${s.base}/`);
      await s.page.waitForURL(/\/register$/);
      await s.page.getByTestId('register-welcome').waitFor();
      await checkScreen(s.page, `the welcome (${lang})`);
      if (lang === 'en') {
        assert.match(await s.page.getByTestId('register-welcome').innerText(), /verified/i);
        await shots(s.page, 'register-welcome');
      }
      await passWelcome(s.page);
      await s.page.locator('#register-step-title[data-step="basics"]').waitFor();
      assert.equal(await s.page.evaluate(() => document.activeElement?.id), 'register-step-title', 'step 1 takes the focus');
      await checkScreen(s.page, `register step 1 (${lang})`);
      // Welcomed once: the form opens on step 1 next time.
      await s.page.reload();
      await s.page.locator('#register-step-title[data-step="basics"]').waitFor();
      assert.equal(await s.page.getByTestId('register-welcome').count(), 0);
      await s.context.close();
    }
  });
});
