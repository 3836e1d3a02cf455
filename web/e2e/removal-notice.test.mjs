// End to end, members told that someone they matched with was removed: a reviewer suspends Leo
// for a scam; Ana (English), Mei (Traditional Chinese) and Yui (Japanese), each matched with him,
// find a notice at the top of /matches and in the ended conversation, in their language, with
// the hotline (165; #9110), and one push naming nobody. Dismissed, it stays dismissed after a
// reload (the server remembers it). axe on each screen, at 390×844 and 320 px.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, WEB_DIR, checkScreen, ensureScreenshotDir, launchBrowser, layoutProblems, openAs, resizeTo } from './harness.mjs';
import { approveAll, bearer, pushesTo, registerByApi, reviewer, waitFor } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';
const NARROW = { width: 320, height: 640 };
const PHONE = { width: 390, height: 844 };
const texts = (locale) => JSON.parse(readFileSync(join(WEB_DIR, `src/lib/i18n/locales/${locale}.json`), 'utf8'));

async function shot(page, name) {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

describe('a removed match’s notice', () => {
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
    }
    const rev = await reviewer(server);
    const view = await server.json(`/api/review/profiles/${ids.Leo}`, { headers: rev });
    const decided = await server.json(`/api/review/profiles/${ids.Leo}/decision`, { method: 'POST', headers: rev, body: JSON.stringify({ action: 'SUSPEND', reasons: ['SCAM'], version: view.body.version }) });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  it('each member matched with him gets one push that names nobody', async () => {
    for (const name of ['Ana', 'Mei', 'Yui']) {
      const safety = await waitFor(async () => {
        const pushes = (await pushesTo(server, users[name])).filter((p) => JSON.stringify(p).includes('via=safety'));
        return pushes.length > 0 ? pushes : null;
      }, `the safety push to ${name}`);
      assert.equal(safety.length, 1);
      const body = JSON.stringify(safety[0]);
      assert.doesNotMatch(body, /Leo/, 'no name');
      assert.doesNotMatch(body, /"image"/, 'no photo');
      assert.match(body, /\/matches\?via=safety/);
    }
  });

  it('shows the notice on /matches and in the ended chat, in each language; dismissed, it stays dismissed', async () => {
    for (const name of ['Ana', 'Mei', 'Yui']) {
      const lang = members[name].lang;
      const t = texts(lang);
      const session = await openAs(browser, server, users[name], { locale: members[name].locale });
      const { page } = session;
      await page.goto(`${session.base}/matches`);
      const notice = page.getByTestId('removal-notice');
      await notice.waitFor();
      assert.equal(await notice.count(), 1);
      assert.equal(await page.getByTestId('removal-notice-what').innerText(), t['match.removed.named'].replace('{name}', 'Leo'));
      const help = await page.getByTestId('removal-notice-help').innerText();
      assert.equal(help, t['match.removed.help']);
      assert.match(help, /165/);
      assert.match(help, /#9110/);
      await checkScreen(page, `the removal notice on /matches (${lang})`);
      await shot(page, `removal-notice-matches-${lang}`);
      await resizeTo(page, NARROW);
      assert.deepEqual(await layoutProblems(notice), [], `the notice at 320 px (${lang})`);
      await shot(page, `removal-notice-matches-${lang}-320`);
      await page.setViewportSize(PHONE);

      // The ended conversation says so too.
      await page.goto(`${session.base}/chat?match=${matches[name]}`);
      await page.getByTestId('chat-ended').waitFor();
      const inChat = page.getByTestId('removal-notice');
      await inChat.waitFor();
      assert.equal(await inChat.getAttribute('data-match-id'), String(matches[name]));
      await checkScreen(page, `the removal notice in the ended chat (${lang})`);
      await shot(page, `removal-notice-chat-${lang}`);
      await resizeTo(page, NARROW);
      assert.deepEqual(await layoutProblems(inChat), [], `the chat's notice at 320 px (${lang})`);
      await shot(page, `removal-notice-chat-${lang}-320`);
      await page.setViewportSize(PHONE);

      if (name === 'Ana') {
        // Dismissed in the chat: gone there and on /matches, after a reload too.
        await page.getByTestId('removal-notice-dismiss').click();
        await inChat.waitFor({ state: 'detached' });
        await page.reload();
        await page.getByTestId('chat-ended').waitFor();
        await page.goto(`${session.base}/matches`);
        await page.getByTestId('matches-empty').waitFor();
        await page.reload();
        await page.getByTestId('matches-empty').waitFor();
        const again = await server.json('/api/removal-notices', { headers: await bearer(server, users.Ana) });
        assert.deepEqual(again.body, []);
        assert.equal(await page.getByTestId('removal-notice').count(), 0);
        await checkScreen(page, '/matches after the notice was dismissed');
      }
      if (name === 'Mei') {
        // Dismissed on /matches: gone from the chat too.
        await page.goto(`${session.base}/matches`);
        await notice.waitFor();
        await page.getByTestId('removal-notice-dismiss').click();
        await notice.waitFor({ state: 'detached' });
        await page.reload();
        await page.getByTestId('matches-empty').waitFor();
        assert.equal(await page.getByTestId('removal-notice').count(), 0);
        await page.goto(`${session.base}/chat?match=${matches[name]}`);
        await page.getByTestId('chat-ended').waitFor();
        assert.equal(await page.getByTestId('removal-notice').count(), 0);
      }
      await session.context.close();
    }
  });
});
