// End to end: the community guidelines, safety tips, what "verified employer" means,
// how to ask for a correction of the name, birthday or gender, the terms and the privacy policy,
// opened from /profile and from a chat's menu (their own lazy chunk), the terms and the privacy
// policy marked as drafts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, launchBrowser, ensureScreenshotDir, openAs, SCREENSHOT_DIR, checkScreen } from './harness.mjs';
import { approveAll, bearer, registerByApi } from './members.mjs';
import { checkStep, fillBasics, next, waitForStep } from './register-flow.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';

describe('Help and rules', () => {
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

  it('the help opens from /profile and from a chat, in its own chunk, with the drafts marked', async () => {
    const mei = await registerByApi(server, { nickname: 'Mei', gender: 'FEMALE', matchGender: 'MALE' });
    const kai = await registerByApi(server, { nickname: 'Kai', gender: 'MALE', matchGender: 'FEMALE' });
    assert.equal(await approveAll(server), 2);
    const auth = { mei: await bearer(server, mei.user.userId), kai: await bearer(server, kai.user.userId) };
    const ids = {};
    for (const who of ['mei', 'kai']) {
      const list = await server.json('/api/introductions', { headers: auth[who] });
      for (const i of list.body.introductions) ids[i.member.nickname] = i.member.memberId;
    }
    assert.equal((await server.json(`/api/introductions/${ids.Kai}/like`, { method: 'POST', headers: auth.mei })).status, 200);
    const liked = await server.json(`/api/introductions/${ids.Mei}/like`, { method: 'POST', headers: auth.kai });
    assert.equal(liked.status, 200, JSON.stringify(liked.body));
    const matchId = liked.body.matchId;

    const session = await openAs(browser, server, mei.user.userId);
    const { page, base } = session;
    const chunks = [];
    page.on('request', (r) => chunks.push(r.url()));

    // From /settings (one entry on /profile): the index, then each topic; only the terms and the
    // privacy policy are drafts.
    await page.goto(`${base}/profile`);
    await page.getByTestId('open-settings').waitFor();
    await checkScreen(page, '/profile');
    await page.getByTestId('open-settings').click();
    await page.getByTestId('profile-help').waitFor();
    await checkScreen(page, '/settings');
    const before = chunks.length;
    await page.getByTestId('profile-help').click();
    await page.waitForURL(/\/help$/);
    await page.getByTestId('help-index').waitFor();
    assert.ok(chunks.slice(before).some((u) => /help-page[^/]*\.js/.test(u)), 'the help is a chunk loaded when opened');
    await checkScreen(page, 'the help');
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, 'help-index.png') });
    // The index's way back leads where the help was opened from, however many topics were read.
    await page.getByTestId('help-topic-safety').click();
    await page.getByTestId('help-back').click();
    await page.getByTestId('help-leave').click();
    await page.waitForURL(/\/settings$/);
    await page.getByTestId('settings-page').waitFor();
    for (const topic of ['guidelines', 'safety', 'verified', 'corrections', 'terms', 'privacy']) {
      await page.goto(`${base}/help`);
      await page.getByTestId(`help-topic-${topic}`).click();
      await page.locator(`[data-testid="help-topic"][data-topic="${topic}"]`).waitFor();
      assert.ok((await page.locator('[data-testid="help-topic"] li').count()) >= 4, `${topic} has its points`);
      assert.equal(await page.getByTestId('help-draft').count(), topic === 'terms' || topic === 'privacy' ? 1 : 0, topic);
    }
    assert.match(await page.getByTestId('help-topic').innerText(), /never see your name/);
    // How to have a reviewer correct the name, birthday or gender, in each language.
    for (const [locale, words] of [['en-US', /official account in LINE/], ['zh-TW', /官方帳號/], ['ja-JP', /公式アカウント/]]) {
      const s = await openAs(browser, server, mei.user.userId, { locale });
      await s.page.goto(`${base}/help?topic=corrections`);
      const topic = s.page.locator('[data-testid="help-topic"][data-topic="corrections"]');
      await topic.waitFor();
      assert.match(await topic.innerText(), words, locale);
      assert.equal(await topic.locator('li').count(), 5, locale);
      await s.context.close();
    }
    if (SCREENSHOTS) {
      await page.goto(`${base}/help?topic=terms`);
      await page.getByTestId('help-draft').waitFor();
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'help-terms.png') });
      await page.setViewportSize({ width: 320, height: 700 });
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'help-terms-320.png') });
      await page.setViewportSize({ width: 390, height: 844 });
    }
    await page.getByTestId('help-back').click();
    await page.getByTestId('help-index').waitFor();

    // From a chat: the menu's "Safety tips and rules" opens the safety tips.
    await page.goto(`${base}/chat?match=${matchId}`);
    await page.getByTestId('chat-menu').click();
    await page.getByTestId('chat-menu-sheet').waitFor();
    await checkScreen(page, "a chat's menu");
    await page.getByTestId('menu-help').click();
    await page.waitForURL(/\/help\?topic=safety$/);
    await page.locator('[data-testid="help-topic"][data-topic="safety"]').waitFor();
    assert.match(await page.getByTestId('help-topic').innerText(), /public place/);
    await session.context.close();
  });

  it('the register form’s privacy link reaches the whole privacy policy, and the form is kept', async () => {
    // A new member, before there is an account: the work step's privacy note.
    const user = await server.mockUser({ displayName: 'Yui' });
    const session = await openAs(browser, server, user.userId);
    const { page, base } = session;
    await page.goto(`${base}/`);
    await page.waitForURL(/\/register$/);
    await waitForStep(page, 'basics');
    await checkStep(page);
    await fillBasics(page, { nickname: 'Yui', name: 'Lin Yui' });
    await next(page);
    await waitForStep(page, 'work');
    await checkStep(page);
    await page.locator('.privacy-line button').click();
    await page.getByTestId('privacy-full').click();
    await page.waitForURL(/\/help\?topic=privacy$/);
    const policy = page.locator('[data-testid="help-topic"][data-topic="privacy"]');
    await policy.waitFor();
    assert.match(await policy.innerText(), /never see your name/);
    await page.getByTestId('help-draft').waitFor();
    // Back to the form: the same step, what was filled in kept.
    await page.goBack();
    await page.waitForURL(/\/register$/);
    await waitForStep(page, 'work');
    await page.getByTestId('step-basics').click();
    await waitForStep(page, 'basics');
    assert.equal(await page.locator('[data-field="nickname"] input').inputValue(), 'Yui');
    await session.context.close();
  });
});
