// End to end, "We met" and the review time told honestly. Leo matched with Ana (English), Mei
// (Traditional Chinese) and Yui (Japanese); each pair wrote both ways; five days later each woman
// finds "Did you meet Leo?" on top of /matches in her language, says it is private, and answers
// (Ana: met, would see him again; Mei: met, would not; Yui: not yet); the card thanks her and is
// gone after a reload, while Leo is still asked his own three questions and reads nothing of
// theirs. A member waiting for review in each language reads on /profile, in a sentence, that too
// few profiles were reviewed this week to tell a usual time. axe on each screen, at 390×844 and
// 320 px, with screenshots.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, WEB_DIR, checkScreen, ensureScreenshotDir, launchBrowser, layoutProblems, openAs } from './harness.mjs';
import { approveAll, bearer, registerByApi } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';
const NARROW = { width: 320, height: 640 };
const PHONE = { width: 390, height: 844 };
const ASK_AFTER_DAYS = 5;
const texts = (locale) => JSON.parse(readFileSync(join(WEB_DIR, `src/lib/i18n/locales/${locale}.json`), 'utf8'));
const fill = (text, values) => Object.entries(values).reduce((s, [k, v]) => s.replaceAll(`{${k}}`, String(v)), text);

async function shot(page, name) {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

/** Checks a screen with axe and its layout at 390×844 and at 320 px, with a screenshot of each. */
async function bothWidths(page, root, what, name) {
  await checkScreen(page, what);
  await shot(page, name);
  await page.setViewportSize(NARROW);
  assert.deepEqual(await layoutProblems(root), [], `${what} at 320 px`);
  await checkScreen(page, `${what} at 320 px`);
  await shot(page, `${name}-320`);
  await page.setViewportSize(PHONE);
}

describe('We met, and the review time', () => {
  const server = new KizunaServer();
  let browser;
  const auth = {};
  const ids = {};
  const users = {};
  const matches = {};
  const members = {
    Ana: { gender: 'FEMALE', matchGender: 'MALE', locale: 'en-US', lang: 'en', answer: { met: true, again: true } },
    Mei: { gender: 'FEMALE', matchGender: 'MALE', locale: 'zh-TW', lang: 'zh-TW', answer: { met: true, again: false } },
    Yui: { gender: 'FEMALE', matchGender: 'MALE', locale: 'ja-JP', lang: 'ja', answer: { met: false } },
    Leo: { gender: 'MALE', matchGender: 'FEMALE', locale: 'en-US', lang: 'en' },
  };

  async function post(who, path, body) {
    const r = await server.json(path, { method: 'POST', headers: auth[who], body: body ? JSON.stringify(body) : undefined });
    assert.ok(r.status < 300, `${path}: ${r.status} ${JSON.stringify(r.body)}`);
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
      await post(name, `/api/introductions/${ids.Leo}/like`);
      matches[name] = (await post('Leo', `/api/introductions/${ids[name]}/like`)).matchId;
      await post(name, `/api/matches/${matches[name]}/messages`, { clientMessageId: `first-${name}`, text: 'Coffee on Saturday?' });
      await post('Leo', `/api/matches/${matches[name]}/messages`, { clientMessageId: `reply-${name}`, text: 'Yes, see you there.' });
    }
    // Nobody is asked before the days have passed.
    const early = await server.json('/api/we-met', { headers: auth.Ana });
    assert.deepEqual(early.body, []);
    await server.json('/__mock/clock', { method: 'POST', body: JSON.stringify({ advanceSecs: ASK_AFTER_DAYS * 86_400 + 60 }) });
    for (const name of Object.keys(members)) auth[name] = await bearer(server, users[name]);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  it('asks each woman privately on /matches in her language, and keeps her answer from Leo', async () => {
    const leoBefore = await server.json('/api/matches', { headers: auth.Leo });
    for (const name of ['Ana', 'Mei', 'Yui']) {
      const { lang, locale, answer } = members[name];
      const t = texts(lang);
      const session = await openAs(browser, server, users[name], { locale });
      const { page } = session;
      await page.goto(`${session.base}/matches`);
      const card = page.getByTestId('we-met');
      await card.waitFor();
      assert.equal(await card.count(), 1);
      assert.equal(await card.getAttribute('data-match-id'), String(matches[name]));
      assert.equal(await card.getByRole('heading').innerText(), fill(t['match.weMet.question'], { name: 'Leo' }));
      assert.equal(await page.getByTestId('we-met-private').innerText(), fill(t['match.weMet.private'], { name: 'Leo' }));
      await bothWidths(page, card, `the We met question (${lang})`, `we-met-question-${lang}`);

      if (answer.met) {
        await page.getByTestId('we-met-yes').click();
        const again = card.getByRole('heading', { name: fill(t['match.weMet.againQuestion'], { name: 'Leo' }) });
        await again.waitFor();
        assert.equal(await again.evaluate((el) => el === document.activeElement), true, 'the second question takes the focus');
        await bothWidths(page, card, `the see-again question (${lang})`, `we-met-again-${lang}`);
        await page.getByTestId(answer.again ? 'we-met-again-yes' : 'we-met-again-no').click();
      } else {
        await page.getByTestId('we-met-no').click();
      }
      await page.getByTestId('we-met-thanks').waitFor();
      assert.equal(await page.getByTestId('we-met-thanks').innerText(), t['match.weMet.thanks']);
      await bothWidths(page, card, `the thanks (${lang})`, `we-met-thanks-${lang}`);

      // Answered for good: gone after a reload.
      await page.reload();
      await page.getByTestId('matches').waitFor();
      assert.equal(await page.getByTestId('we-met').count(), 0);
      await session.context.close();
    }

    // Leo reads the same matches as before and is still asked his own three questions.
    const leoAfter = await server.json('/api/matches', { headers: auth.Leo });
    assert.deepEqual(leoAfter.body, leoBefore.body);
    const his = await server.json('/api/we-met', { headers: auth.Leo });
    assert.deepEqual(his.body.map((q) => q.nickname).sort(), ['Ana', 'Mei', 'Yui']);
    const session = await openAs(browser, server, users.Leo, { locale: 'en-US' });
    await session.page.goto(`${session.base}/matches`);
    await session.page.getByTestId('we-met').first().waitFor();
    assert.equal(await session.page.getByTestId('we-met').count(), 3);
    const shown = await session.page.locator('body').innerText();
    assert.doesNotMatch(shown, /met you|wants to see you|不想|会いたい/);
    await session.context.close();
  });

  it('tells a member waiting for review, in a sentence, that there is too little data for a usual time', async () => {
    for (const [nickname, locale, lang] of [['Pia', 'en-US', 'en'], ['Lin', 'zh-TW', 'zh-TW'], ['Rin', 'ja-JP', 'ja']]) {
      const t = texts(lang);
      const { user } = await registerByApi(server, { nickname, locale });
      const session = await openAs(browser, server, user.userId, { locale });
      const { page } = session;
      await page.goto(`${session.base}/profile`);
      const line = page.getByTestId('review-time');
      await line.waitFor();
      assert.equal(await line.getAttribute('data-figures'), 'too-little');
      assert.equal(await line.innerText(), fill(t['review.time.tooLittle'], { days: 7 }));
      assert.doesNotMatch(await line.innerText(), /\d+\s*(h|hours?|時間|小時)/);
      const card = page.getByTestId('review-status');
      await bothWidths(page, card, `the pending screen's review time (${lang})`, `review-time-pending-${lang}`);
      await session.context.close();
    }
  });
});
