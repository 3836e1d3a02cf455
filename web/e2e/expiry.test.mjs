// End to end, matches that do not go stale (issue 42, points 3 and 4), in English, Traditional
// Chinese and Japanese: Ana, Mei and Yui each have five conversations whose other member wrote
// last over a day ago; liking the next introduction on /today opens "Your turn" (the server held
// the like) with those five, Reply and End; ending one brings the like back and sends it. The man
// likes her back and nobody writes: after seven days (the server's clock moved, the job run) both
// find the match on /matches with a line saying it expired, and its chat closed. axe on each
// screen, screenshots at 390×844 and 320 px.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, WEB_DIR, checkScreen, ensureScreenshotDir, launchBrowser, layoutProblems, openAs } from './harness.mjs';
import { approveAll, bearer, registerByApi } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';
const NARROW = { width: 320, height: 640 };
const PHONE = { width: 390, height: 844 };
const DAY = 86_400;
const texts = (lang) => ({
  ...JSON.parse(readFileSync(join(WEB_DIR, `src/lib/i18n/locales/${lang}.json`), 'utf8')),
  ...JSON.parse(readFileSync(join(WEB_DIR, `src/features/matchmaking/locales/${lang}.json`), 'utf8')),
});

async function shot(page, name) {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

describe('your turn, and matches that expire', () => {
  const server = new KizunaServer();
  let browser;
  const auth = {};
  const users = {};
  const ids = {};
  const women = {
    Ana: { locale: 'en-US', lang: 'en' },
    Mei: { locale: 'zh-TW', lang: 'zh-TW' },
    Yui: { locale: 'ja-JP', lang: 'ja' },
  };
  const men = ['Kai', 'Leo', 'Ren', 'Sho', 'Tom', 'Jun'];
  // Each woman's sixth man: the one her first day's list left for the next.
  const sixth = {};

  async function call(who, path, method = 'GET', body) {
    const r = await server.json(path, { method, headers: auth[who], ...(body ? { body: JSON.stringify(body) } : {}) });
    assert.ok(r.status < 300, `${method} ${path} as ${who}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  before(async () => {
    if (SCREENSHOTS) ensureScreenshotDir();
    await server.start();
    browser = await launchBrowser();
    for (const [nickname, w] of Object.entries(women)) users[nickname] = (await registerByApi(server, { nickname, gender: 'FEMALE', matchGender: 'MALE', locale: w.locale })).user.userId;
    for (const nickname of men) users[nickname] = (await registerByApi(server, { nickname, gender: 'MALE', matchGender: 'FEMALE', birthday: '1990-02-11', height: 178 })).user.userId;
    assert.equal(await approveAll(server), 9);
    for (const name of Object.keys(users)) auth[name] = await bearer(server, users[name]);
    for (const man of men) for (const i of (await call(man, '/api/introductions')).introductions) ids[i.member.nickname] = i.member.memberId;
    for (const woman of Object.keys(women)) {
      const list = (await call(woman, '/api/introductions')).introductions;
      for (const i of list) ids[i.member.nickname] = i.member.memberId;
      assert.equal(list.length, 5);
      const listed = list.map((i) => i.member.nickname);
      sixth[woman] = men.find((m) => !listed.includes(m));
      for (const man of listed) {
        await call(woman, `/api/introductions/${ids[man]}/like`, 'POST');
        const back = await call(man, `/api/introductions/${ids[woman]}/like`, 'POST');
        assert.equal(back.matched, true);
        await call(man, `/api/matches/${back.matchId}/messages`, 'POST', { clientMessageId: crypto.randomUUID(), text: `${man}: how was your weekend?` });
      }
    }
    // A day and a bit later: five conversations wait on each woman; a new day's list.
    await server.advanceClock(DAY + 3600);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  it('a like waits while five conversations wait on her: Your turn lists them, End one, and the like goes', async () => {
    for (const [name, w] of Object.entries(women)) {
      const t = texts(w.lang);
      const session = await openAs(browser, server, users[name], { locale: w.locale });
      const { page } = session;
      await page.goto(`${session.base}/today`);
      const card = page.locator(`[data-testid="introduction"][data-member-id="${ids[sixth[name]]}"]`);
      await card.waitFor();
      await card.getByTestId('like').click();
      const sheet = page.getByTestId('your-turn');
      await sheet.getByTestId('your-turn-match').first().waitFor();
      assert.equal(await sheet.getByTestId('your-turn-match').count(), 5);
      assert.equal(await page.getByTestId('your-turn-why').innerText(), t['match.yourTurn.why'].replace('{n}', '5'));
      // Nothing was stored: the card still offers Like.
      const stored = await call(name, '/api/likes');
      assert.ok(!stored.sent.some((l) => l.member.memberId === ids[sixth[name]]), 'the held like is not sent');
      await checkScreen(page, `Your turn (${w.lang})`);
      await shot(page, `your-turn-${w.lang}`);
      await page.setViewportSize(NARROW);
      assert.deepEqual(await layoutProblems(sheet), [], `Your turn at 320 px (${w.lang})`);
      await shot(page, `your-turn-${w.lang}-320`);

      // End the first: asked on the row, then the like is offered and sent.
      const first = sheet.getByTestId('your-turn-match').first();
      const endedName = await first.getByTestId('your-turn-name').innerText();
      await first.getByTestId('your-turn-end').click();
      await first.getByTestId('your-turn-confirm').waitFor();
      await checkScreen(page, `Your turn, ending one (${w.lang})`);
      await shot(page, `your-turn-end-${w.lang}-320`);
      await page.setViewportSize(PHONE);
      await first.getByTestId('your-turn-end-yes').click();
      await page.getByTestId('your-turn-like').waitFor();
      assert.equal(await sheet.getByTestId('your-turn-match').count(), 4);
      assert.equal(await page.getByTestId('your-turn-status').innerText(), t['match.unmatched'].replace('{name}', endedName));
      assert.equal(await page.getByTestId('your-turn-why').innerText(), t['match.yourTurn.ready']);
      await checkScreen(page, `Your turn, ready (${w.lang})`);
      await shot(page, `your-turn-ready-${w.lang}`);
      await page.getByTestId('your-turn-like').click();
      await sheet.waitFor({ state: 'hidden' });
      await page.locator(`[data-testid="introduction"][data-member-id="${ids[sixth[name]]}"][data-reaction="LIKE"]`).waitFor();
      const sent = await call(name, '/api/likes');
      assert.ok(sent.sent.some((l) => l.member.memberId === ids[sixth[name]]), 'the like is sent');
      await session.context.close();
    }
  });

  it('a match where nobody writes is listed as expired for both after seven days, its chat closed', async () => {
    const silent = {};
    for (const name of Object.keys(women)) {
      const back = await call(sixth[name], `/api/introductions/${ids[name]}/like`, 'POST');
      assert.equal(back.matched, true);
      silent[name] = back.matchId;
    }
    await server.advanceClock(7 * DAY);
    const run = await server.json('/__mock/quiet-matches', { method: 'POST' });
    assert.equal(run.status, 200);
    assert.equal(run.body.expired, 3, JSON.stringify(run.body));
    for (const [name, w] of Object.entries(women)) {
      const t = texts(w.lang);
      const session = await openAs(browser, server, users[name], { locale: w.locale });
      const { page } = session;
      await page.goto(`${session.base}/matches`);
      const row = page.locator(`[data-testid="expired-match"][data-match-id="${silent[name]}"]`);
      await row.waitFor();
      assert.equal(await row.getByTestId('expired-nickname').innerText(), sixth[name]);
      assert.equal(await row.getByTestId('expired-line').innerText(), t['match.expired.line'].replace('{days}', '7'));
      // Not among the live ones, and nothing of "unmatched".
      assert.equal(await page.locator(`[data-testid="match"][data-match-id="${silent[name]}"]`).count(), 0);
      await row.scrollIntoViewIfNeeded();
      await checkScreen(page, `/matches with an expired match (${w.lang})`);
      await shot(page, `expired-match-${w.lang}`);
      await page.setViewportSize(NARROW);
      assert.deepEqual(await layoutProblems(page.getByTestId('expired-matches')), [], `the expired match at 320 px (${w.lang})`);
      await row.scrollIntoViewIfNeeded();
      await shot(page, `expired-match-${w.lang}-320`);
      await page.setViewportSize(PHONE);
      // The chat is closed like an ended one.
      await page.goto(`${session.base}/chat?match=${silent[name]}`);
      await page.getByTestId('chat-ended').waitFor();
      await checkScreen(page, `the expired match's chat (${w.lang})`);
      await session.context.close();
    }
    // The man sees it too, named by her nickname (a fresh session: a week went by).
    auth[sixth.Ana] = await bearer(server, users[sixth.Ana]);
    const his = await call(sixth.Ana, '/api/expired-matches');
    assert.ok(his.some((m) => m.matchId === silent.Ana && m.nickname === 'Ana'), JSON.stringify(his));
  });
});
