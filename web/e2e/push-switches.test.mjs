// End to end: each LINE push kind has its own switch on /settings. Three members each
// turn one kind off in their browser (the morning introductions, a new match, a new message); the
// daily run, the matches and the messages that follow then push to them every kind but that one,
// while a member who left every switch on gets all three, so each switch stops exactly its push.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KizunaServer, launchBrowser, openAs, checkScreen, checkScreenOnce } from './harness.mjs';
import { approveAll, bearer, pushesTo, registerByApi, waitFor } from './members.mjs';

/** Each push kind, the switch on /settings that stops it and how its English text reads. */
const KINDS = {
  introductions: { testId: 'morning-push', text: /new introductions? today/ },
  matches: { testId: 'match-push', text: /It's a match!/ },
  messages: { testId: 'message-push', text: /New message from Kai\b/ },
};

/** How many pushes of each kind `userId` was sent. */
async function kindsSentTo(server, userId) {
  const texts = (await pushesTo(server, userId)).map((p) => JSON.stringify(p.messages));
  return Object.fromEntries(Object.entries(KINDS).map(([kind, { text }]) => [kind, texts.filter((t) => text.test(t)).length]));
}

describe('Each push kind switched off on its own', () => {
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

  it('a switch turned off on /settings stops its push to that member, while members with it on still get it', async () => {
    // Ana keeps every switch on; Iris, Mei and Yui each turn one kind off. Kai meets all four.
    const off = { Ana: null, Iris: 'introductions', Mei: 'matches', Yui: 'messages' };
    const women = {};
    for (const name of Object.keys(off)) women[name] = await registerByApi(server, { nickname: name, gender: 'FEMALE', matchGender: 'MALE' });
    const kaiMember = await registerByApi(server, { nickname: 'Kai', gender: 'MALE', matchGender: 'FEMALE' });
    assert.equal(await approveAll(server), 5);
    const all = { ...women, Kai: kaiMember };
    const sessions = {};
    for (const [name, m] of Object.entries(all)) sessions[name] = await openAs(browser, server, m.user.userId);

    // The switches, on /settings: all on at first; each of three members turns one off.
    for (const [name, kind] of Object.entries(off)) {
      const { page, base } = sessions[name];
      await page.goto(`${base}/settings`);
      for (const { testId } of Object.values(KINDS)) await page.locator(`[data-testid="${testId}"][data-state="on"]`).waitFor();
      await checkScreenOnce(page, "/settings' push switches");
      if (!kind) continue;
      const { testId } = KINDS[kind];
      const [put] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === '/api/user/notifications' && r.request().method() === 'PUT'),
        page.getByTestId(testId).click(),
      ]);
      assert.equal(put.status(), 200);
      await page.locator(`[data-testid="${testId}"][data-state="off"]`).waitFor();
      const saved = await server.json('/api/user/notifications', { headers: await bearer(server, all[name].user.userId) });
      assert.deepEqual(saved.body, { introductions: true, matches: true, messages: true, [kind]: false }, name);
    }

    // The morning run makes everyone's list (nobody had one yet) and pushes about it.
    const run = await server.runIntroductions();
    assert.equal(run.lists, 5, JSON.stringify(run));
    assert.equal(run.pushes, 4, 'every member with new introductions but Iris');

    // Each woman likes Kai on her /today, then Kai likes each back on his: four matches.
    const kaiCard = (name) => sessions[name].page.getByTestId('introduction').filter({ has: sessions[name].page.getByTestId('member-nickname').filter({ hasText: 'Kai' }) });
    for (const name of Object.keys(off)) {
      const { page, base } = sessions[name];
      await page.goto(`${base}/today`);
      await kaiCard(name).waitFor();
      await checkScreenOnce(page, '/today');
      await kaiCard(name).getByTestId('like').click();
      await kaiCard(name).getByTestId('liked').waitFor();
    }
    const kai = sessions.Kai;
    for (const name of Object.keys(off)) {
      await kai.page.goto(`${kai.base}/today`);
      const card = kai.page.getByTestId('introduction').filter({ has: kai.page.getByTestId('member-nickname').filter({ hasText: name }) });
      await card.getByTestId('like').click();
      await kai.page.getByRole('heading', { name: "It's a match!" }).waitFor();
      await checkScreenOnce(kai.page, "It's a match");
    }

    // Kai writes to each of them while they are away from the chat (no events stream open).
    await kai.page.goto(`${kai.base}/matches`);
    await kai.page.getByTestId('match').first().waitFor();
    await checkScreen(kai.page, '/matches');
    for (const name of Object.keys(off)) {
      const matchId = await kai.page.getByTestId('match').filter({ hasText: name }).getAttribute('data-match-id');
      await kai.page.goto(`${kai.base}/chat?match=${matchId}`);
      await kai.page.getByTestId('chat-input').fill(`Hi ${name}!`);
      await kai.page.getByTestId('chat-send').click();
      await kai.page.locator('[data-testid="chat-message"][data-delivery="sent"]').filter({ hasText: `Hi ${name}!` }).waitFor();
      await checkScreenOnce(kai.page, 'a chat');
      await kai.page.goto(`${kai.base}/matches`);
    }

    // Every push that should come comes; then, after a moment for any stray one, none other did.
    const expected = (name) => Object.fromEntries(Object.keys(KINDS).map((kind) => [kind, off[name] === kind ? 0 : 1]));
    for (const name of Object.keys(off)) {
      const want = expected(name);
      await waitFor(async () => {
        const got = await kindsSentTo(server, all[name].user.userId);
        return Object.keys(KINDS).every((kind) => got[kind] >= want[kind]);
      }, `${name}'s pushes`);
    }
    await waitFor(async () => (await kindsSentTo(server, kaiMember.user.userId)).matches === 4, 'Kai’s four match pushes');
    await new Promise((r) => setTimeout(r, 1500));
    for (const name of Object.keys(off)) assert.deepEqual(await kindsSentTo(server, all[name].user.userId), expected(name), name);
    assert.deepEqual(await kindsSentTo(server, kaiMember.user.userId), { introductions: 1, matches: 4, messages: 0 });
    for (const s of Object.values(sessions)) await s.context.close();
  });
});
