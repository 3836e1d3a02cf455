// End to end, the review console's report queue and the morning-push setting, end to end: members in
// their own browser contexts report each other; a reviewer on a laptop reads the reports (reasons
// translated, the words, the date, the pair's conversation), dismisses one, and suspends from the other (a 409 first, while
// another reviewer holds the profile), after which the suspended member is gone from a third
// member's matches and introductions and the report is settled. A member gets no report queue.
// An approved member turns the morning push off on /profile; it stays off after a reload and the
// server agrees; a failed save moves the switch back with an error toast.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KizunaServer, launchBrowser, openAs, checkScreenOnce, checkScreen } from './harness.mjs';
import { approveAll, bearer, pushesTo, memberByApi, reviewer as newReviewer, waitFor } from './members.mjs';
import { readFileSync } from 'node:fs';

/** The app's catalogues: a label is expected as it is written there. */
// Each built catalogue: the app's messages and the texts shared with the server (core/data/texts).
const readJson = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const labels = Object.fromEntries(['en', 'zh-TW', 'ja'].map((l) => [l, { ...readJson(`../src/lib/i18n/locales/${l}.json`), ...readJson(`../../core/data/texts/${l}.json`) }]));

const card = (m, name) => m.page.getByTestId('introduction').filter({ has: m.page.getByTestId('member-nickname').filter({ hasText: name }) });

/** From today's card, the member's profile, Report with `reasons` (their English labels) and `text`. */
async function report(m, name, reasons, text) {
  await m.page.goto(`${m.base}/today`);
  await card(m, name).waitFor();
  await checkScreenOnce(m.page, '/today');
  await card(m, name).getByTestId('view-profile').click();
  await m.page.getByTestId('member-profile').waitFor();
  await checkScreenOnce(m.page, "an introduction's profile");
  await m.page.getByTestId('report').click();
  const dialog = m.page.getByTestId('report-dialog');
  await dialog.locator('input[type="radio"]').first().waitFor();
  await checkScreenOnce(m.page, 'the report dialog');
  for (const r of reasons) await dialog.getByLabel(r).check();
  await dialog.locator('textarea').fill(text);
  await m.page.getByTestId('report-confirm').click();
  await m.page.waitForURL(/\/matches$/);
}

function enTime(secs) {
  return new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(secs * 1000));
}

describe('Report queue and morning push', () => {
  const server = new KizunaServer();
  let browser;
  let reviewer;
  let reviewerAuth;
  let second;
  const m = {};

  before(async () => {
    await server.start();
    browser = await launchBrowser();
    const user = await server.mockUser({ displayName: 'Rei Reviewer' });
    const session = await openAs(browser, server, user.userId, { laptop: true });
    await session.page.goto(`${session.base}/dev`);
    await session.page.getByTestId('dev-user-id').waitFor();
    await session.page.getByTestId('dev-reviewer-toggle').click();
    await session.page.getByTestId('dev-reviewer').filter({ hasText: 'Yes' }).waitFor();
    await checkScreen(session.page, '/dev, a reviewer');
    reviewer = { user, ...session };
    reviewerAuth = await bearer(server, user.userId);
    second = await newReviewer(server, 'Second Reviewer');
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  it('members report each other; the reviewer reads the reports, dismisses one and suspends from the other', async () => {
    m.mei = await memberByApi(browser, server, { nickname: 'Mei', name: 'Lin Mei', gender: 'FEMALE', matchGender: 'MALE' });
    m.ana = await memberByApi(browser, server, { nickname: 'Ana', name: 'Chang Ana', gender: 'FEMALE', matchGender: 'MALE' });
    m.kai = await memberByApi(browser, server, { nickname: 'Kai', name: 'Chen Kai', gender: 'MALE', matchGender: 'FEMALE' });
    m.ren = await memberByApi(browser, server, { nickname: 'Ren', name: 'Wang Ren', gender: 'MALE', matchGender: 'FEMALE' });
    assert.equal(await approveAll(server, reviewerAuth), 4);
    for (const x of Object.values(m)) {
      await x.page.goto(`${x.base}/today`);
      await x.page.getByTestId('introductions').waitFor();
      assert.equal(await x.page.getByTestId('introduction').count(), 2);
    }

    // Ana and Kai match: Ana is the one who later sees Kai leave
    await card(m.ana, 'Kai').getByTestId('like').click();
    await card(m.ana, 'Kai').getByTestId('liked').waitFor();
    await card(m.kai, 'Ana').getByTestId('like').click();
    await m.kai.page.getByRole('heading', { name: "It's a match!" }).waitFor();
    await checkScreen(m.kai.page, "It's a match");
    await m.ana.page.goto(`${m.ana.base}/matches`);
    await m.ana.page.getByTestId('match').filter({ hasText: 'Kai' }).waitFor();
    await checkScreen(m.ana.page, '/matches');

    // Mei and Kai match too, and Kai writes to her: the reviewer will read that conversation
    await card(m.mei, 'Kai').getByTestId('like').click();
    await card(m.mei, 'Kai').getByTestId('liked').waitFor();
    await m.kai.page.goto(`${m.kai.base}/today`);
    await card(m.kai, 'Mei').getByTestId('like').click();
    await m.kai.page.getByRole('heading', { name: "It's a match!" }).waitFor();
    await m.kai.page.goto(`${m.kai.base}/matches`);
    await m.kai.page.getByTestId('match').filter({ hasText: 'Mei' }).getByTestId('open-chat').click();
    await m.kai.page.getByTestId('chat-input').fill('Could you lend me 20,000 until Friday?');
    await m.kai.page.getByTestId('chat-send').click();
    // Asking for money: the sender's safety sheet asks first; Kai sends anyway.
    await m.kai.page.getByTestId('send-check-send').waitFor();
    await checkScreen(m.kai.page, 'the safety sheet');
    await m.kai.page.getByTestId('send-check-send').click();
    await m.kai.page.locator('[data-testid="chat-message"][data-delivery="sent"]').filter({ hasText: 'until Friday' }).waitFor();
    await checkScreen(m.kai.page, 'a chat');

    // two reports: Ren reports Mei (to be dismissed), then Mei reports Kai
    await report(m.ren, 'Mei', ['Advertising or spam'], 'Keeps sending a link to a shop.');
    await report(m.mei, 'Kai', ['Scam or asking for money'], 'Asked me to lend him money.');

    const { page } = reviewer;
    await page.goto(`${reviewer.base}/review`);
    await page.getByRole('heading', { name: 'Review console' }).waitFor();
    await page.locator('[data-testid="reports-count"]', { hasText: '2' }).waitFor();
    await checkScreen(page, 'the review console on a laptop');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/review/reports' && r.ok()),
      page.getByTestId('tab-reports').click(),
    ]);
    const { items } = await answer.json();
    assert.equal(new URL(page.url()).search, '?tab=reports');
    const cards = page.getByTestId('report');
    await cards.nth(1).waitFor();
    assert.equal(await cards.count(), 2);
    // oldest first: Ren's report of Mei, then Mei's of Kai
    const [first, next] = [cards.nth(0), cards.nth(1)];
    assert.equal(await first.getByTestId('report-target').innerText(), 'Mei');
    assert.equal(await first.getByTestId('report-reporter').innerText(), 'reported by Ren');
    assert.equal(await first.getByTestId('report-reasons').innerText(), 'Advertising or spam');
    assert.equal(await first.getByTestId('report-text').innerText(), 'Keeps sending a link to a shop.');
    assert.equal(await first.getByTestId('report-time').innerText(), enTime(items[0].createdAt));
    assert.equal(await next.getByTestId('report-target').innerText(), 'Kai');
    assert.deepEqual([...items[1].reasons].sort(), ['SCAM_OR_MONEY']);
    assert.deepEqual(await next.locator('[data-testid="report-reasons"] li').allInnerTexts(), items[1].reasons.map((r) => labels.en[`report.reason.${r}`]));
    assert.equal(await next.getByTestId('report-text').innerText(), 'Asked me to lend him money.');
    // the reviewer reads what Kai wrote to Mei, named; Ren and Mei never talked
    assert.deepEqual(items[1].conversation.map((l) => [l.from, l.text]), [['reported', 'Could you lend me 20,000 until Friday?']]);
    assert.deepEqual(await next.locator('[data-testid="report-conversation"] li').allInnerTexts().then((t) => t.map((x) => /^Kai\b/.test(x) && x.includes('until Friday?'))), [true]);
    assert.match(await first.getByTestId('report-conversation').innerText(), /They exchanged no messages\./);

    // the reported member's profile opens in the console, and the reports are one tab away
    await next.getByTestId('report-open-profile').click();
    await page.locator(`[data-testid="review-detail"][data-profile-id="${items[1].target.profileId}"][data-status="APPROVED"]`).waitFor();
    assert.equal(new URL(page.url()).search, `?profile=${items[1].target.profileId}`);
    await page.getByTestId('tab-reports').click();
    await cards.nth(1).waitFor();

    // Dismiss asks first, then the report leaves the queue (and the server's)
    await first.getByTestId('report-dismiss').click();
    assert.match(await page.getByTestId('dismiss-box').innerText(), /Mei stays as they are/);
    await page.getByTestId('dismiss-confirm').click();
    await page.getByTestId('toast-success').filter({ hasText: 'Report dismissed.' }).waitFor();
    await waitFor(async () => (await cards.count()) === 1, 'the dismissed report to leave');
    await page.locator('[data-testid="reports-count"]', { hasText: '1' }).waitFor();
    const open = await server.json('/api/review/reports', { headers: reviewerAuth });
    assert.deepEqual(open.body.items.map((r) => r.reportId), [items[1].reportId]);

    // Suspend while another reviewer holds Kai's profile: the 409 is shown, nothing changes
    const kaiId = items[1].target.profileId;
    assert.equal((await server.json(`/api/review/profiles/${kaiId}/claim`, { method: 'POST', headers: second })).status, 200);
    const kaiReport = cards.first();
    await kaiReport.getByTestId('report-suspend').click();
    // the reason the report suggests is chosen already
    assert.equal(await kaiReport.locator('input[type=radio]:checked').getAttribute('value'), items[1].suggestedSuspension[0]);
    await kaiReport.getByLabel('Note to the member (optional)').fill('You asked another member for money.');
    await kaiReport.getByTestId('suspend-confirm').click();
    await kaiReport.getByTestId('report-conflict').waitFor();
    assert.match(await kaiReport.getByTestId('report-conflict').innerText(), /409.*another reviewer holds this profile/s);
    assert.equal((await server.reviewStatus(m.kai.user.userId)).body.status, 'APPROVED');
    await m.ana.page.reload();
    await m.ana.page.getByTestId('match').filter({ hasText: 'Kai' }).waitFor();

    // released: the same form suspends
    assert.equal((await server.json(`/api/review/profiles/${kaiId}/claim`, { method: 'DELETE', headers: second })).status, 204);
    await kaiReport.getByTestId('suspend-confirm').click();
    await page.getByTestId('reports-empty').waitFor();
    assert.equal(await page.getByTestId('reports-count').count(), 0);
    assert.equal((await server.reviewStatus(m.kai.user.userId)).body.status, 'SUSPENDED');
    assert.deepEqual((await server.json('/api/review/reports', { headers: reviewerAuth })).body.items, []);
    // the report is settled: dismissing it now is a conflict
    const again = await server.json(`/api/review/reports/${items[1].reportId}/dismiss`, { method: 'POST', headers: reviewerAuth });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'E005');
    await waitFor(async () => (await pushesTo(server, m.kai.user.userId)).some((p) => /account is suspended/.test(JSON.stringify(p.messages))), 'the suspension push');

    // Ana: Kai is gone from her matches and her introductions (Ren stays)
    await m.ana.page.goto(`${m.ana.base}/matches`);
    await m.ana.page.getByTestId('matches-empty').waitFor();
    await m.ana.page.goto(`${m.ana.base}/today`);
    await card(m.ana, 'Ren').waitFor();
    assert.equal(await card(m.ana, 'Kai').count(), 0);
    // Kai is out of matchmaking
    await m.kai.page.goto(`${m.kai.base}/today`);
    await m.kai.page.waitForURL(/\/profile$/);
    await m.kai.page.locator('[data-testid="review-status"][data-status="SUSPENDED"]').waitFor();
    await checkScreen(m.kai.page, '/profile, SUSPENDED');
  });

  it('the report queue reads well at phone width in zh-TW and ja', async () => {
    // one more report, so that a card is on the phone's screen
    await report(m.ana, 'Ren', ['Advertising or spam'], '一直傳購物網站的連結。');
    for (const [locale, title] of [['zh-TW', '未處理的檢舉（由舊到新）'], ['ja', '未対応の通報（古い順）']]) {
      const s = await openAs(browser, server, reviewer.user.userId, { locale });
      await s.page.goto(`${s.base}/review?tab=reports`);
      await s.page.getByRole('heading', { name: title }).waitFor();
      const one = s.page.getByTestId('report');
      await one.waitFor();
      assert.equal(await one.getByTestId('report-reasons').innerText(), labels[locale]['report.reason.SPAM']);
      assert.match(await one.getByTestId('report-time').innerText(), /2\d{3}/);
      assert.ok(await s.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${locale}: nothing wider than the phone`);
      await s.context.close();
    }
  });

  it('a member gets no report queue: the console refuses and the server answers 403 E004', async () => {
    await m.mei.page.goto(`${m.mei.base}/review?tab=reports`);
    await m.mei.page.getByTestId('review-refused').waitFor();
    assert.equal(await m.mei.page.getByTestId('reports').count(), 0);
    assert.equal(await m.mei.page.getByTestId('reports-panel').count(), 0);
    const answer = await server.json('/api/review/reports', { headers: await bearer(server, m.mei.user.userId) });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.code, 'E004');
  });

  it('the morning push is turned off on /settings, stays off after a reload, and a failed save moves back', async () => {
    const { page, base } = m.ana;
    await page.goto(`${base}/settings`);
    const toggle = page.getByTestId('morning-push');
    await page.locator('[data-testid="morning-push"][data-state="on"]').waitFor();
    await checkScreenOnce(page, '/settings');
    assert.equal(await page.getByRole('switch', { name: 'Morning introductions on LINE' }).isChecked(), true);
    const [put] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/user/notifications' && r.request().method() === 'PUT'),
      toggle.click(),
    ]);
    assert.equal(put.status(), 200);
    await page.reload();
    await page.locator('[data-testid="morning-push"][data-state="off"]').waitFor();
    assert.equal(await toggle.isChecked(), false);
    const auth = await bearer(server, m.ana.user.userId);
    assert.deepEqual((await server.json('/api/user/notifications', { headers: auth })).body, { introductions: false, matches: true, messages: true });

    // the network fails: the switch moves, moves back, and says so
    await page.route('**/api/user/notifications', (route) => (route.request().method() === 'PUT' ? route.abort('failed') : route.continue()));
    await toggle.click();
    await page.getByTestId('toast-error').filter({ hasText: 'The setting could not be saved. Please try again.' }).waitFor();
    await page.locator('[data-testid="morning-push"][data-state="off"]').waitFor();
    assert.equal(await toggle.isChecked(), false);
    await page.unroute('**/api/user/notifications');
    assert.deepEqual((await server.json('/api/user/notifications', { headers: auth })).body, { introductions: false, matches: true, messages: true });

    // a member who is not APPROVED has no such switch (Kai, suspended)
    await m.kai.page.goto(`${m.kai.base}/profile`);
    await m.kai.page.locator('[data-testid="review-status"][data-status="SUSPENDED"]').waitFor();
    assert.equal(await m.kai.page.getByTestId('morning-push').count(), 0);
    await m.kai.page.goto(`${m.kai.base}/settings`);
    await m.kai.page.getByTestId('sign-out-card').waitFor();
    assert.equal(await m.kai.page.getByTestId('morning-push').count(), 0);
  });
});
