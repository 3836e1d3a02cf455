// End to end, the recipient's side and the reviewers': a member who matched
// writes contact details and money talk; the recipient, in English, Traditional Chinese and
// Japanese, sees a caution under each with what to do (165; #9110 and 188), and reports from it
// with the scam reason chosen; the conversation waits in the reviewers' console with its flagged
// messages marked, and a reviewer dismisses it. axe on each new screen, at 390×844 and 320 px.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, WEB_DIR, checkScreen, ensureScreenshotDir, launchBrowser, layoutProblems, openAs } from './harness.mjs';
import { approveAll, bearer, registerByApi } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';
const NARROW = { width: 320, height: 640 };
const PHONE = { width: 390, height: 844 };
const texts = (locale) => JSON.parse(readFileSync(join(WEB_DIR, `src/features/matchmaking/locales/${locale}.json`), 'utf8'));
const consoleTexts = JSON.parse(readFileSync(join(WEB_DIR, 'src/features/review/locales/en.json'), 'utf8'));

async function shot(page, name) {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

describe('the recipient’s caution and the flagged conversation', () => {
  const server = new KizunaServer();
  let browser;
  const auth = {};
  const ids = {};
  const users = {};
  const matches = {};
  const members = {
    Ana: { gender: 'FEMALE', matchGender: 'MALE', locale: 'en-US', lang: 'en' },
    Mei: { gender: 'FEMALE', matchGender: 'MALE', locale: 'zh-TW', lang: 'zh-TW' },
    Yui: { gender: 'FEMALE', matchGender: 'MALE', locale: 'ja-JP', lang: 'ja' },
    Leo: { gender: 'MALE', matchGender: 'FEMALE', locale: 'en-US', lang: 'en' },
  };

  async function apiLike(who, whom) {
    const r = await server.json(`/api/introductions/${ids[whom]}/like`, { method: 'POST', headers: auth[who] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  }

  async function say(matchId, n, text) {
    const r = await server.json(`/api/matches/${matchId}/messages`, { method: 'POST', headers: auth.Leo, body: JSON.stringify({ clientMessageId: `leo-${matchId}-${n}-msg`, text }) });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.caution, null, 'the sender never sees a caution');
  }

  before(async () => {
    if (SCREENSHOTS) ensureScreenshotDir();
    await server.start();
    browser = await launchBrowser();
    for (const [nickname, m] of Object.entries(members)) users[nickname] = (await registerByApi(server, { nickname, gender: m.gender, matchGender: m.matchGender, locale: m.locale })).user.userId;
    assert.equal(await approveAll(server), 4);
    for (const name of Object.keys(members)) {
      auth[name] = await bearer(server, users[name]);
      const list = await server.json('/api/introductions', { headers: auth[name] });
      for (const i of list.body.introductions) ids[i.member.nickname] = i.member.memberId;
    }
    for (const name of ['Ana', 'Mei', 'Yui']) {
      await apiLike(name, 'Leo');
      matches[name] = (await apiLike('Leo', name)).matchId;
      await say(matches[name], 1, 'This app is slow, add me on LINE: leo_0815');
      await say(matches[name], 2, 'My mentor doubled my savings with USDT, I can show you the platform');
    }
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  it('shows the caution with the hotline in each language; a report from it has the scam reason chosen', async () => {
    for (const name of ['Ana', 'Mei', 'Yui']) {
      const lang = members[name].lang;
      const t = texts(lang);
      const session = await openAs(browser, server, users[name], { locale: members[name].locale });
      const { page } = session;
      await page.goto(`${session.base}/chat?match=${matches[name]}`);
      const cautions = page.getByTestId('chat-caution');
      await cautions.nth(1).waitFor();
      assert.equal(await cautions.count(), 2);
      assert.equal(await page.getByTestId('chat-caution-OFF_PLATFORM').innerText(), t['match.caution.offPlatform']);
      assert.equal(await page.getByTestId('chat-caution-MONEY').innerText(), t['match.caution.money']);
      const help = await page.getByTestId('chat-caution-help').first().innerText();
      assert.equal(help, t['match.caution.help']);
      if (lang !== 'ja') assert.match(help, /165/);
      if (lang !== 'zh-TW') assert.match(help, /#9110/);
      await checkScreen(page, `the recipient's caution (${lang})`);
      await shot(page, `safety-caution-${lang}`);
      await page.setViewportSize(NARROW);
      assert.deepEqual(await layoutProblems(cautions.first()), [], `the caution at 320 px (${lang})`);
      await shot(page, `safety-caution-${lang}-320`);
      await page.setViewportSize(PHONE);
      if (name === 'Ana') {
        await page.getByTestId('chat-caution-report').nth(1).click();
        const scam = page.locator('input[type="radio"][value="SCAM_OR_MONEY"]');
        await scam.waitFor();
        assert.equal(await scam.isChecked(), true, 'the scam reason is chosen');
        await checkScreen(page, 'a report from a caution');
        await page.getByTestId('report-confirm').click();
        await page.waitForURL(/\/matches/);
        await page.getByTestId('matches-page').or(page.locator('main')).first().waitFor();
        await checkScreen(page, '/matches after a report');
      }
      await session.context.close();
    }
  });

  it('puts the conversation in the reviewers’ console once, with the flagged messages marked; a reviewer dismisses it', async () => {
    const user = await server.mockUser({ displayName: 'Rei Reviewer' });
    const session = await openAs(browser, server, user.userId, { laptop: true });
    const { page } = session;
    await page.goto(`${session.base}/dev`);
    await page.getByTestId('dev-user-id').waitFor();
    await page.getByTestId('dev-reviewer-toggle').click();
    await page.getByTestId('dev-reviewer').filter({ hasText: 'Yes' }).waitFor();
    await checkScreen(page, '/dev, a reviewer');
    await page.goto(`${session.base}/review?tab=reports`);
    const items = page.getByTestId('flagged-item');
    await items.nth(2).waitFor();
    assert.equal(await items.count(), 3, 'one item per conversation');
    const mei = page.locator(`[data-testid="flagged-item"][data-match-id="${matches.Mei}"]`);
    assert.equal(await mei.getByTestId('flagged-cause').innerText(), consoleTexts['console.flagged.cause.OFF_PLATFORM_THEN_MONEY']);
    assert.equal(await mei.getByTestId('flagged-mark').count(), 2);
    assert.match(await mei.getByTestId('flagged-waited').innerText(), /\d/);
    await checkScreen(page, 'flagged conversations in the console');
    await shot(page, 'safety-console-flagged');
    await mei.getByTestId('flagged-dismiss').click();
    await checkScreen(page, 'dismissing a flagged conversation');
    await mei.getByTestId('flagged-dismiss-confirm').click();
    await page.locator(`[data-testid="flagged-item"][data-match-id="${matches.Mei}"]`).waitFor({ state: 'detached' });
    assert.equal(await items.count(), 2);
    await session.context.close();
  });
});
