// End to end: every push is a Flex Message whose one button is the LIFF app's permanent
// link (https://liff.line.me/{liffId}/…), and each link opens its exact screen from a cold start
// (a fresh browser: nothing stored, the app's own login first) for a registered member, and is
// kept through registration for a new one. The pushes are the real ones the server sent to the
// mock LINE platform (a review decision, today's introductions, a new match, a new message); the
// arrival goes the way LINE takes it, the LIFF endpoint with the path in `liff.state`. Each
// arrival is counted by its kind, and `kizuna-server funnel` prints the day.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { KizunaServer, checkScreen, checkScreenOnce, launchBrowser, openAs, serverBinary } from './harness.mjs';
import { approveAll, bearer, pushesTo, registerByApi, waitFor } from './members.mjs';
import { waitForStep } from './register-flow.mjs';

/** The address LINE opens for a permanent link: the endpoint, the path and query in liff.state. */
function arrival(base, link) {
  const m = /^https:\/\/liff\.line\.me\/[^/?#]+(\/[^#]*)?$/.exec(link);
  assert.ok(m, `a permanent link: ${link}`);
  return `${base}/?liff.state=${encodeURIComponent(m[1] || '/')}`;
}

/** A push's one action: its Flex Message's footer button. */
function linkOf(push) {
  const [message] = push.messages;
  assert.equal(message.type, 'flex');
  assert.ok(message.altText.length > 0 && message.altText.length <= 1500);
  return message.contents.footer.contents[0].action.uri;
}

function kindOf(link) {
  return new URL(link).searchParams.get('via');
}

describe('push links', () => {
  const server = new KizunaServer();
  let browser;
  let mei;
  let matchId;
  /** Mei's pushes' links by kind. */
  const links = {};
  /** Arrivals made, by kind. */
  const arrived = { match: 0, message: 0, introductions: 0, review: 0 };

  before(async () => {
    await server.start();
    browser = await launchBrowser();
    mei = await registerByApi(server, { nickname: 'Mei', gender: 'FEMALE', matchGender: 'MALE' });
    const kai = await registerByApi(server, { nickname: 'Kai', gender: 'MALE', matchGender: 'FEMALE' });
    assert.equal(await approveAll(server), 2);
    // The morning job makes the lists and pushes them.
    await server.runIntroductions();
    const auth = { mei: await bearer(server, mei.user.userId), kai: await bearer(server, kai.user.userId) };
    const idOf = async (who, nickname) => {
      const list = await server.json('/api/introductions', { headers: auth[who] });
      return list.body.introductions.find((i) => i.member.nickname === nickname).member.memberId;
    };
    const kaiId = await idOf('mei', 'Kai');
    const meiId = await idOf('kai', 'Mei');
    assert.equal((await server.json(`/api/introductions/${kaiId}/like`, { method: 'POST', headers: auth.mei })).status, 200);
    const liked = await server.json(`/api/introductions/${meiId}/like`, { method: 'POST', headers: auth.kai });
    assert.equal(liked.status, 200, JSON.stringify(liked.body));
    matchId = liked.body.matchId;
    const sent = await server.json(`/api/matches/${matchId}/messages`, { method: 'POST', headers: auth.kai, body: JSON.stringify({ clientMessageId: crypto.randomUUID(), text: 'A secret about the hike' }) });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    const pushes = await waitFor(async () => {
      const got = await pushesTo(server, mei.user.userId);
      return ['review', 'introductions', 'match', 'message'].every((k) => got.some((p) => kindOf(linkOf(p)) === k)) && got;
    }, "Mei's four pushes");
    for (const push of pushes) links[kindOf(linkOf(push))] = linkOf(push);
    // Nobody's photo and no message text in any push.
    for (const push of pushes) {
      const json = JSON.stringify(push.messages);
      assert.ok(!json.includes('"image"') && !json.includes('A secret about the hike'), json);
    }
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  const screens = () => [
    ['review', /\/today$/, 'introductions'],
    ['introductions', /\/today$/, 'introductions'],
    ['match', new RegExp(`/chat\\?match=${matchId}$`), 'chat-messages'],
    ['message', new RegExp(`/chat\\?match=${matchId}$`), 'chat-messages'],
  ];

  it("each push's link opens its exact screen for a registered member from a cold start", async () => {
    for (const [kind, url, testId] of screens()) {
      const link = links[kind];
      assert.match(link, /^https:\/\/liff\.line\.me\//, kind);
      const { page, base, context } = await openAs(browser, server, mei.user.userId);
      await page.goto(arrival(base, link));
      await page.waitForURL(url, { timeout: 20_000 });
      await page.getByTestId(testId).first().waitFor();
      if (testId === 'introductions') await checkScreenOnce(page, '/today opened from a push');
      if (kind === 'message') {
        await page.getByText('A secret about the hike').waitFor();
        await checkScreen(page, `/chat opened from a push (${kind})`);
      }
      assert.equal(await page.evaluate(() => localStorage.getItem('kizuna:redirect-path')), null, kind);
      assert.ok(!page.url().includes('via='), page.url());
      arrived[kind] += 1;
      await context.close();
    }
  });

  it("a new member's arrival through any push's link waits for registration with the exact path", async () => {
    for (const [kind] of screens()) {
      const user = await server.mockUser({ displayName: 'Newcomer' });
      const { page, base, context } = await openAs(browser, server, user.userId);
      await page.goto(arrival(base, links[kind]));
      await page.waitForURL(/\/register$/, { timeout: 20_000 });
      await waitForStep(page, 'basics');
      await checkScreenOnce(page, '/register opened from a push');
      const expected = new URL(links[kind]).pathname.replace(/^\/[^/]+/, '') + new URL(links[kind]).search.replace(/[?&]via=[a-z]+$/, '');
      assert.equal(await page.evaluate(() => localStorage.getItem('kizuna:redirect-path')), expected, kind);
      arrived[kind] += 1;
      await context.close();
    }
  });

  it('counts each arrival by its kind and `kizuna-server funnel` prints the day', async () => {
    // The count is sent without waiting: give the last one a moment.
    await new Promise((r) => setTimeout(r, 500));
    const env = { ...process.env, KIZUNA_DATA_DIR: server.dataDir, RUST_LOG: 'warn' };
    delete env.DATABASE_URL;
    const table = execFileSync(serverBinary(), ['funnel'], { env, encoding: 'utf8' });
    for (const [kind, n] of Object.entries(arrived)) {
      const row = table.split('\n').find((l) => l.startsWith(`${kind} `) && /\d+\s+\d+/.test(l));
      assert.ok(row, `${kind}: ${table}`);
      const [sent, visits] = row.trim().split(/\s+/).slice(1, 3).map(Number);
      assert.ok(sent >= 1, `${kind} sent: ${table}`);
      assert.equal(visits, n, `${kind} visits: ${table}`);
    }
    assert.match(table, /matches\s+1\s+50\.0% of likes/);
    assert.match(table, /first messages\s+1\s+100\.0% of matches/);
    console.log(table);
  });
});
