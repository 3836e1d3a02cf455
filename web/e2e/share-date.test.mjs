// End to end, "Share my date" and "Invite a friend to Kizuna": from a match's chat a member types
// where and when they meet the match and sends ONE LINE friend a Flex bubble through
// liff.shareTargetPicker (the real @line/liff SDK, @line/liff-mock's answers); from /profile a
// member sends a friend the official account's add-friend link. The mock records nothing it is
// given, so the test wraps window.liff.shareTargetPicker (the SDK as the app exposes it on the mock
// platform, as LIFF's CDN build does) to see what the app passed, and hands that message to the
// mock LINE platform's push endpoint, which refuses what LINE would (kizuna-core's
// push::check_messages). Every request the page makes while sharing is recorded: none carries the
// plan. In English, Traditional Chinese and Japanese; the cancelled, not-available and error paths;
// axe on every state of the sheet; screenshots at 390×844 and 320 px.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, WEB_DIR, checkScreen, checkScreenOnce, ensureScreenshotDir, launchBrowser, layoutProblems, openAs, randomUserId } from './harness.mjs';
import { approveAll, bearer, pushesTo, registerByApi } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';
const NARROW = { width: 320, height: 640 };
const PHONE = { width: 390, height: 844 };
const TZ = 'Asia/Taipei';
const texts = (locale) => JSON.parse(readFileSync(join(WEB_DIR, `src/lib/i18n/locales/${locale}.json`), 'utf8'));

async function shot(page, name) {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

/** A `datetime-local` value `days` from now at 19:30 in Taipei (UTC+8 all year). */
function eveningIn(days) {
  const taipei = new Date(Date.now() + days * 86_400_000 + 8 * 3_600_000);
  return `${taipei.toISOString().slice(0, 10)}T19:30`;
}

/** Sets the mock's answers and wraps the SDK's picker to keep what the app hands it: `answer` is
 *  what the picker resolves with, `throws` a LIFF error code it rejects with instead. */
async function instrument(page, { available = true, answer = { status: 'success' }, throws = null } = {}) {
  await page.waitForFunction(() => Boolean(window.liff?.$mock));
  await page.evaluate(
    ({ available, answer, throws }) => {
      const liff = window.liff;
      liff.$mock.set((prev) => ({ ...prev, isApiAvailable: available, shareTargetPicker: answer }));
      window.__shared = [];
      const mocked = (liff.__mockedPicker ??= liff.shareTargetPicker);
      liff.shareTargetPicker = (messages, options) => {
        window.__shared.push({ messages: JSON.parse(JSON.stringify(messages)), options });
        if (throws) return Promise.reject(Object.assign(new Error(`LIFF ${throws}`), { code: throws }));
        return mocked.call(liff, messages, options);
      };
    },
    { available, answer, throws },
  );
}

const shared = (page) => page.evaluate(() => window.__shared);

/** Every request the page makes from now on, with its body. */
function recordRequests(page) {
  const seen = [];
  page.on('request', (req) => seen.push(`${req.method()} ${req.url()} ${req.postData() ?? ''}`));
  return seen;
}

describe('Share my date and Invite a friend', () => {
  const server = new KizunaServer();
  let browser;
  let liffId;
  let lineBotId;
  const auth = {};
  const ids = {};
  const users = {};
  const matches = {};

  async function apiLike(who, whom) {
    const r = await server.json(`/api/introductions/${ids[whom]}/like`, { method: 'POST', headers: auth[who] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  }

  /** What LINE would answer to the message: the mock platform checks it with kizuna-core's rules. */
  async function lineAccepts(messages) {
    const friend = randomUserId();
    const r = await server.json('/__mock/line/v2/bot/message/push', {
      method: 'POST',
      headers: { Authorization: 'Bearer mock-channel-access-token' },
      body: JSON.stringify({ to: friend, messages }),
    });
    assert.equal(r.status, 200, `LINE refuses the shared message: ${JSON.stringify(r.body)}`);
  }

  /** Opens `who`'s chat with Leo, the menu, then "Share my date". */
  async function openSheet(who, locale) {
    const session = await openAs(browser, server, users[who], { locale, timezoneId: TZ });
    const { page } = session;
    await page.goto(`${session.base}/chat?match=${matches[who]}`);
    await page.getByTestId('chat-form').waitFor();
    await checkScreenOnce(page, 'the chat');
    await page.getByTestId('chat-menu').click();
    await page.getByTestId('chat-menu-sheet').waitFor();
    await checkScreenOnce(page, 'the chat’s menu');
    if (who === 'Ana') await shot(page, 'share-date-menu');
    await page.getByTestId('menu-share-date').click();
    await page.getByTestId('share-date').waitFor();
    return session;
  }

  before(async () => {
    if (SCREENSHOTS) ensureScreenshotDir();
    await server.start();
    browser = await launchBrowser();
    ({ liffId, lineBotId } = (await server.json('/api/config')).body);
    const members = {
      Ana: { gender: 'FEMALE', matchGender: 'MALE', locale: 'en-US' },
      Leo: { gender: 'MALE', matchGender: 'FEMALE', locale: 'en-US' },
      Mei: { gender: 'FEMALE', matchGender: 'MALE', locale: 'zh-TW' },
      Yui: { gender: 'FEMALE', matchGender: 'MALE', locale: 'ja-JP' },
    };
    for (const [nickname, m] of Object.entries(members)) users[nickname] = (await registerByApi(server, { nickname, ...m })).user.userId;
    assert.equal(await approveAll(server), 4);
    for (const name of Object.keys(members)) {
      auth[name] = await bearer(server, users[name]);
      const list = await server.json('/api/introductions', { headers: auth[name] });
      for (const i of list.body.introductions) ids[i.member.nickname] = i.member.memberId;
    }
    for (const name of ['Ana', 'Mei', 'Yui']) {
      await apiLike(name, 'Leo');
      matches[name] = (await apiLike('Leo', name)).matchId;
      assert.ok(matches[name]);
    }
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  for (const [who, locale, language, place] of [
    ['Ana', 'en-US', 'en', 'Cafe Lumi, 12 Yongkang St, Da’an'],
    ['Mei', 'zh-TW', 'zh-TW', '大安區永康街 12 號 Lumi 咖啡'],
    ['Yui', 'ja-JP', 'ja', '渋谷駅ハチ公口のカフェ・ルミ'],
  ]) {
    it(`${language}: sends one friend the plan with Leo's nickname, where, when and the safety link; the match is not told and no request carries the plan`, async () => {
      const t = texts(language);
      const { page, context } = await openSheet(who, locale);
      const sheet = page.getByRole('dialog', { name: t['match.shareDate.title'] });
      assert.ok((await sheet.innerText()).includes(t['match.shareDate.intro'].replaceAll('{name}', 'Leo')));
      const leoPhotos = (await server.json('/api/matches', { headers: auth[who] })).body.find((m) => m.matchId === matches[who]).member.photoNameList;
      assert.ok(leoPhotos.length > 0, 'Leo has photos the bubble must not carry');

      await instrument(page);
      const requests = recordRequests(page);
      const when = eveningIn(2);
      await page.getByTestId('share-date-place').fill(place);
      await page.getByTestId('share-date-when').fill(when);
      await checkScreen(page, `the share sheet (${language})`);
      await shot(page, `share-date-${language}`);
      if (language === 'en') {
        await page.setViewportSize(NARROW);
        assert.deepEqual(await layoutProblems(sheet), [], 'the sheet at 320 px');
        await shot(page, 'share-date-en-320');
        await page.setViewportSize(PHONE);
      }
      await page.getByTestId('share-date-send').click();
      const outcome = page.getByTestId('share-date-outcome');
      await page.locator('[data-testid="share-date-outcome"][data-outcome="sent"]').waitFor();
      assert.equal(await outcome.innerText(), t['share.sent']);
      await checkScreen(page, `the share sheet, sent (${language})`);
      await shot(page, `share-date-sent-${language}`);
      if (language === 'en') {
        await page.setViewportSize(NARROW);
        assert.deepEqual(await layoutProblems(sheet), [], 'the sent sheet at 320 px');
        await shot(page, 'share-date-sent-en-320');
        await page.setViewportSize(PHONE);
      }

      // What the app handed LINE: one Flex bubble, to one friend.
      const calls = await shared(page);
      assert.equal(calls.length, 1);
      assert.deepEqual(calls[0].options, { isMultiple: false });
      const [message] = calls[0].messages;
      assert.equal(calls[0].messages.length, 1);
      assert.equal(message.type, 'flex');
      assert.equal(message.contents.type, 'bubble');
      const json = JSON.stringify(message);
      assert.ok(json.includes(JSON.stringify(t['match.shareDate.bubbleTitle'])), 'the title in the sender’s language');
      assert.ok(json.includes('"Leo"'), 'the match’s nickname');
      assert.ok(json.includes(JSON.stringify(place)), 'where');
      const whenShown = await page.evaluate(
        ([value, lang]) => new Intl.DateTimeFormat(lang, { dateStyle: 'full', timeStyle: 'short' }).format(new Date(value)),
        [when, language],
      );
      assert.ok(json.includes(JSON.stringify(whenShown)), `when, as ${language} writes it: ${whenShown}`);
      assert.ok(whenShown.includes('30'), whenShown);
      assert.deepEqual(json.match(/https?:\/\/[^"]+/g), [`https://liff.line.me/${liffId}/help?topic=safety`], 'the safety tips, the one link');
      for (const photo of leoPhotos) assert.ok(!json.includes(photo), 'no photo of the match');
      assert.doesNotMatch(json, /"(image|hero)"/);
      await lineAccepts(calls[0].messages);

      // Nothing of the plan left the page for Kizuna, and Leo was told nothing.
      const placeWord = place.slice(0, 6);
      const leaks = requests.filter((r) => r.includes(placeWord) || r.includes(encodeURIComponent(placeWord)) || r.includes(when) || r.includes(encodeURIComponent(when)));
      assert.deepEqual(leaks, [], 'no request carries the plan');
      const toLeo = JSON.stringify((await pushesTo(server, users.Leo)).map((p) => p.messages));
      assert.ok(!toLeo.includes(placeWord) && !toLeo.includes(JSON.stringify(t['match.shareDate.bubbleTitle'])), 'Leo is pushed nothing of it');
      const messages = await server.json(`/api/matches/${matches[who]}/messages`, { headers: auth.Leo });
      assert.deepEqual(messages.body.messages, [], 'nothing in the conversation');

      // Done: the sheet closes; opened again it starts empty.
      await page.getByTestId('share-date-done').click();
      await sheet.waitFor({ state: 'hidden' });
      await page.getByTestId('chat-menu').click();
      await page.getByTestId('menu-share-date').click();
      assert.equal(await page.getByTestId('share-date-place').inputValue(), '');
      await context.close();
    });
  }

  it('cancelled, an error, a plan with nothing in it or too far ahead: each says so, and nothing reaches the server', async () => {
    const t = texts('en');
    const { page, context } = await openSheet('Ana', 'en-US');
    const requests = recordRequests(page);
    const outcome = page.getByTestId('share-date-outcome');

    // Nothing typed: both fields say why, LINE is not asked.
    await instrument(page, { answer: false });
    await page.getByTestId('share-date-send').click();
    await page.getByText(t['match.shareDate.placeRequired']).waitFor();
    await page.getByText(t['match.shareDate.whenRequired']).waitFor();
    await checkScreen(page, 'the share sheet with its errors');
    await page.getByTestId('share-date-place').fill('Hotel Midnight lobby');
    await page.getByTestId('share-date-when').fill(eveningIn(95));
    await page.getByTestId('share-date-send').click();
    await page.getByText(t['match.shareDate.whenRange'].replace('{hours}', '12').replace('{days}', '90')).waitFor();
    assert.deepEqual(await shared(page), [], 'the picker is not opened for a plan the core refuses');

    // Cancelled: the member closed LINE's list (the SDK resolves with false).
    await page.getByTestId('share-date-when').fill(eveningIn(1));
    await page.getByTestId('share-date-send').click();
    await page.locator('[data-testid="share-date-outcome"][data-outcome="cancelled"]').waitFor();
    assert.equal(await outcome.innerText(), t['share.cancelled']);
    assert.equal(await page.getByTestId('share-date-place').inputValue(), 'Hotel Midnight lobby', 'the plan stays to try again');
    assert.equal((await shared(page)).length, 1);
    await checkScreen(page, 'the share sheet, cancelled');
    await shot(page, 'share-date-cancelled');

    // An error thrown by the SDK: said, and only its code is logged.
    await instrument(page, { throws: 'EXCEPTION_IN_SUBWINDOW' });
    await page.getByTestId('share-date-send').click();
    await page.locator('[data-testid="share-date-outcome"][data-outcome="failed"]').waitFor();
    assert.equal(await outcome.innerText(), t['share.failed']);
    const logs = requests.filter((r) => r.includes('/api/logger'));
    assert.ok(logs.some((r) => r.includes('share target picker failed: EXCEPTION_IN_SUBWINDOW')), `the failure is logged: ${logs.join('\n')}`);
    assert.deepEqual(requests.filter((r) => /Midnight/.test(r)), [], 'no request carries the plan');
    await context.close();
  });

  it('not available (outside LINE, or a LINE too old): said as the sheet opens, the picker is never opened', async () => {
    const t = texts('ja');
    const session = await openAs(browser, server, users.Yui, { locale: 'ja-JP', timezoneId: TZ });
    const { page } = session;
    await page.goto(`${session.base}/chat?match=${matches.Yui}`);
    await page.getByTestId('chat-form').waitFor();
    await instrument(page, { available: false });
    await page.getByTestId('chat-menu').click();
    await page.getByTestId('menu-share-date').click();
    await page.locator('[data-testid="share-date-outcome"][data-outcome="unavailable"]').waitFor();
    assert.equal(await page.getByTestId('share-date-outcome').innerText(), t['share.unavailable']);
    assert.equal(await page.getByTestId('share-date-send').isDisabled(), true);
    await checkScreen(page, 'the share sheet, not available');
    await shot(page, 'share-date-unavailable-ja');
    await page.setViewportSize(NARROW);
    assert.deepEqual(await layoutProblems(page.getByTestId('share-date')), [], 'the sheet at 320 px');
    await shot(page, 'share-date-unavailable-ja-320');
    assert.deepEqual(await shared(page), []);
    await session.context.close();
  });

  it('Invite a friend, on /profile: the official account’s add-friend link to one friend; cancelled and not available said too', async () => {
    const t = texts('zh-TW');
    const session = await openAs(browser, server, users.Mei, { locale: 'zh-TW', timezoneId: TZ });
    const { page } = session;
    await page.goto(`${session.base}/profile`);
    const card = page.getByTestId('invite-card');
    await card.waitFor();
    await instrument(page);
    const requests = recordRequests(page);
    await card.getByRole('button', { name: t['profile.invite.send'] }).click();
    await page.locator('[data-testid="invite-outcome"][data-outcome="sent"]').waitFor();
    assert.equal(await page.getByTestId('invite-outcome').innerText(), t['share.sent']);
    await card.scrollIntoViewIfNeeded();
    await checkScreen(page, '/profile with the invitation sent');
    await shot(page, 'invite-sent-zh-TW');
    await page.setViewportSize(NARROW);
    assert.deepEqual(await layoutProblems(card), [], 'the card at 320 px');
    await card.scrollIntoViewIfNeeded();
    await shot(page, 'invite-sent-zh-TW-320');
    await page.setViewportSize(PHONE);

    const [call] = await shared(page);
    assert.deepEqual(call.options, { isMultiple: false });
    const json = JSON.stringify(call.messages);
    assert.ok(json.includes(JSON.stringify(t['profile.invite.bubbleTitle'])));
    assert.deepEqual(json.match(/https?:\/\/[^"]+/g), [`https://line.me/R/ti/p/${encodeURIComponent(lineBotId)}`], 'the official account’s add-friend link, as /friend uses it');
    assert.ok(!json.includes('Mei'), 'nothing about the member');
    await lineAccepts(call.messages);
    assert.deepEqual(requests.filter((r) => r.includes(t['profile.invite.bubbleTitle']) || r.includes('ti/p')), [], 'no request carries the invitation');

    await instrument(page, { answer: false });
    await card.getByRole('button', { name: t['profile.invite.send'] }).click();
    await page.locator('[data-testid="invite-outcome"][data-outcome="cancelled"]').waitFor();
    assert.equal(await page.getByTestId('invite-outcome').innerText(), t['share.cancelled']);
    await instrument(page, { available: false });
    await card.getByRole('button', { name: t['profile.invite.send'] }).click();
    await page.locator('[data-testid="invite-outcome"][data-outcome="unavailable"]').waitFor();
    assert.equal(await page.getByTestId('invite-outcome').innerText(), t['share.unavailable']);
    await checkScreen(page, '/profile with sharing not available');
    await session.context.close();
  });
});
