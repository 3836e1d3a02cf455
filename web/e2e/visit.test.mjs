// End to end: one login per opening of the app, screens that appear at once, empty states
// that lead somewhere, and the way back from a profile. Approved members registered through the
// API (the register form has its own tests), in Chromium at 390×844.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, SCREENSHOT_DIR, ensureScreenshotDir, launchBrowser, openAs, checkScreen, checkScreenOnce } from './harness.mjs';
import { approveAll, registerByApi, reviewer } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';

/** The screen at 390×844 and, resized, at 320 px wide. */
async function shots(page, name) {
  if (!SCREENSHOTS) return;
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 320, height: 640 });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-320.png`) });
  await page.setViewportSize(size);
}

/** Counts the page's API requests by method and path (`POST /api/user/login`). */
function countRequests(page) {
  const counts = new Map();
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (!url.pathname.startsWith('/api/')) return;
    const key = `${req.method()} ${url.pathname.replace(/\/U[0-9a-f]{32}$/, '/{userId}')}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  return {
    of: (key) => counts.get(key) ?? 0,
    reset: () => counts.clear(),
    all: () => Object.fromEntries(counts),
  };
}

/** Records whether a spinner was put on screen since the last `reset` (a MutationObserver in the
 *  page, so that one shown for a frame is caught too). */
async function watchSpinners(context) {
  await context.addInitScript(() => {
    window.__spinnerShown = false;
    new MutationObserver(() => {
      if (document.querySelector('.spinner, [data-testid="loading-overlay"]')) window.__spinnerShown = true;
    }).observe(document, { childList: true, subtree: true });
  });
}

const TAB_CONTENT = {
  today: '[data-testid="introductions"], [data-testid="today-empty"]',
  likes: '[data-testid="likes-sent"], [data-testid="likes-received"], [data-testid="likes-empty"]',
  matches: '[data-testid="matches"], [data-testid="matches-empty"]',
  profile: '[data-testid="review-status"]',
};

describe('One login per opening, screens at once', () => {
  const server = new KizunaServer();
  let browser;
  let mei;
  let ren; // a man seeking men, whom nobody here suits: an empty /today and no matches
  let reviewerAuth;

  before(async () => {
    if (SCREENSHOTS) ensureScreenshotDir();
    await server.start();
    browser = await launchBrowser();
    mei = await registerByApi(server, { nickname: 'Mei', gender: 'FEMALE', matchGender: 'MALE' });
    await registerByApi(server, { nickname: 'Kai', gender: 'MALE', matchGender: 'FEMALE', recommendDistanceKm: 0 });
    ren = await registerByApi(server, { nickname: 'Ren', gender: 'MALE', matchGender: 'MALE', photos: 1 });
    reviewerAuth = await reviewer(server);
    assert.equal(await approveAll(server, reviewerAuth), 3);
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  it('ten tab switches log in 0 times after the first load, ask review-status and my-info at most when a screen shows it, and show seen data without a spinner', async () => {
    const { context, page, base } = await openAs(browser, server, mei.user.userId);
    await watchSpinners(context);
    const requests = countRequests(page);
    await page.goto(`${base}/today`);
    await page.locator(TAB_CONTENT.today).first().waitFor();
    assert.equal(requests.of('POST /api/user/login'), 1, JSON.stringify(requests.all()));
    requests.reset();
    const order = ['likes', 'matches', 'profile', 'today'];
    const seen = new Set(['today']);
    let profileVisits = 0;
    for (let i = 0; i < 10; i++) {
      const tab = order[i % order.length];
      await page.evaluate(() => (window.__spinnerShown = false));
      await page.locator(`[data-testid="bottom-nav"] a[data-tab="${tab}"]`).click();
      await page.waitForURL(new RegExp(`/${tab}$`));
      await page.locator(TAB_CONTENT[tab]).first().waitFor();
      if (tab === 'profile') profileVisits++;
      if (seen.has(tab)) assert.equal(await page.evaluate(() => window.__spinnerShown), false, `a spinner on the way back to /${tab} (switch ${i + 1})`);
      seen.add(tab);
      // (axe asks the server nothing: the counts stay the app's.)
      await checkScreenOnce(page, `/${tab}`);
    }
    assert.equal(requests.of('POST /api/user/login'), 0, JSON.stringify(requests.all()));
    assert.equal(requests.of('GET /api/user/review-status/{userId}'), 0, JSON.stringify(requests.all()));
    // The profile screen shows my-info and refreshes it behind what it shows; no other tab asks.
    assert.ok(requests.of('GET /api/user/my-info') <= profileVisits, JSON.stringify(requests.all()));

    // A new opening of the app (a reload, on the last tab) reuses the stored session: no login at all.
    requests.reset();
    await page.reload();
    await page.locator(TAB_CONTENT[order[9 % order.length]]).first().waitFor();
    assert.equal(requests.of('POST /api/user/login'), 0, JSON.stringify(requests.all()));
    assert.equal(requests.of('GET /api/user/my-info'), 1, JSON.stringify(requests.all()));
    await context.close();
  });

  it('a stored session the server refuses (revoked) costs one login, and the screen shows', async () => {
    const { context, page, base } = await openAs(browser, server, mei.user.userId);
    await context.addCookies([{ name: 'kizuna_token', value: 'not-a-session', url: base }]);
    const requests = countRequests(page);
    await page.goto(`${base}/matches`);
    await page.locator(TAB_CONTENT.matches).first().waitFor();
    assert.equal(requests.of('POST /api/user/login'), 1, JSON.stringify(requests.all()));
    await context.close();
  });

  it('a returning member’s cold /today paints the frame with the HTML and asks for the introductions as soon as my-info says APPROVED, never under an unproven session', async () => {
    const first = await openAs(browser, server, mei.user.userId);
    await first.page.goto(`${first.base}/today`);
    await first.page.locator(TAB_CONTENT.today).first().waitFor();
    const cookies = await first.context.cookies();
    await first.context.close();

    const { context, page, base } = await openAs(browser, server, mei.user.userId);
    await context.addCookies(cookies);
    // my-info answers late (600 ms, and not before the frame has been seen: on a loaded machine
    // the round trip that looks for it can take longer): whatever waits for it shows up after its
    // answer.
    let myInfoAnsweredAt = Infinity;
    let frameSeen;
    const afterFrame = new Promise((resolve) => (frameSeen = resolve));
    await page.route('**/api/user/my-info', async (route) => {
      await Promise.all([afterFrame, new Promise((r) => setTimeout(r, 600))]);
      const res = await route.fetch();
      myInfoAnsweredAt = Date.now();
      await route.fulfill({ response: res });
    });
    let introductionsAskedAt = Infinity;
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/api/introductions' && introductionsAskedAt === Infinity) introductionsAskedAt = Date.now();
    });
    await page.goto(`${base}/today`, { waitUntil: 'commit' });
    // The frame is in the HTML: there before the scripts and any answer (my-info is held until
    // it shows).
    await page.locator('[data-testid="page-frame"]').waitFor({ timeout: 5000 });
    frameSeen();
    await page.getByTestId('introduction').first().waitFor();
    // Nothing goes out under the stored session before my-info proved it (a suspension ends it);
    // then the introductions at once, not after the screen's render asks for them.
    assert.ok(introductionsAskedAt >= myInfoAnsweredAt, `introductions asked ${myInfoAnsweredAt - introductionsAskedAt} ms before my-info answered`);
    assert.ok(introductionsAskedAt - myInfoAnsweredAt < 500, `introductions asked ${introductionsAskedAt - myInfoAnsweredAt} ms after my-info answered`);
    await context.close();
  });

  it('a returning member’s cold /today shows the first card’s photo in the HTML’s frame before any script, and the card shows that very file, downloaded once', async () => {
    const first = await openAs(browser, server, mei.user.userId);
    await first.page.goto(`${first.base}/today`);
    await first.page.locator(TAB_CONTENT.today).first().waitFor();
    const cookies = await first.context.cookies();
    await first.context.close();

    const { context, page, base } = await openAs(browser, server, mei.user.userId);
    await context.addCookies(cookies);
    // No script runs until the frame's photo was seen: the page alone shows it.
    let release;
    const scriptsHeld = new Promise((resolve) => (release = resolve));
    await page.route('**/assets/*.js', async (route) => {
      await scriptsHeld;
      await route.continue();
    });
    const downloads = [];
    page.on('requestfinished', (req) => {
      if (req.url().includes('/_ipx/') && !req.url().includes('s_10x10')) downloads.push(req.url());
    });
    await page.goto(`${base}/today`, { waitUntil: 'commit' });
    const framed = page.locator('img#first-photo');
    await framed.waitFor({ timeout: 10_000 });
    await page.waitForFunction(() => document.querySelector('img#first-photo')?.complete && document.querySelector('img#first-photo').naturalWidth > 0, null, { timeout: 10_000 });
    const shown = await framed.evaluate((img) => ({ src: img.currentSrc, width: img.naturalWidth, height: img.naturalHeight, box: img.getBoundingClientRect().width }));
    assert.equal(await page.evaluate(() => document.querySelector('[data-route]')), null, 'the app was not started yet');
    // 390 px wide: the card is 358 px, its 360 px rendition (4:5), not the 528 px one.
    assert.match(shown.src, /\/_ipx\/s_360x450,fit_cover,f_webp\/api\/file\/fetch\/[0-9a-f]{32}$/);
    assert.equal(Math.round(shown.box), 390 - 32);
    release();
    const card = page.getByTestId('introduction').first().locator('img').first();
    await card.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="introduction"] img');
      return img?.complete && img.naturalWidth > 0;
    });
    assert.equal(await card.evaluate((img) => img.currentSrc), shown.src);
    assert.deepEqual(downloads.filter((url) => url === shown.src), [shown.src], `downloads: ${downloads.join(', ')}`);
    await context.close();
  });

  it('a member suspended since the last opening asks for nothing they cannot have: one 401 (the ended session), then /profile', async () => {
    const sora = await registerByApi(server, { nickname: 'Sora', gender: 'FEMALE', matchGender: 'MALE' });
    const pending = await server.json('/api/review/queue', { headers: reviewerAuth });
    assert.equal(pending.body.items.length, 1, JSON.stringify(pending.body));
    const profileId = pending.body.items[0].profileId;
    assert.equal(await approveAll(server, reviewerAuth), 1);
    const first = await openAs(browser, server, sora.user.userId);
    await first.page.goto(`${first.base}/today`);
    await first.page.locator(TAB_CONTENT.today).first().waitFor();
    const cookies = await first.context.cookies();
    await first.context.close();
    // The last opening left its session and an APPROVED member's cookie; a reviewer suspends her,
    // which ends her sessions.
    const view = await server.json(`/api/review/profiles/${profileId}`, { headers: reviewerAuth });
    const decided = await server.json(`/api/review/profiles/${profileId}/decision`, { method: 'POST', headers: reviewerAuth, body: JSON.stringify({ action: 'SUSPEND', reasons: ['SPAM'], version: view.body.version }) });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));

    const { context, page, base } = await openAs(browser, server, sora.user.userId);
    await context.addCookies(cookies);
    const failed = [];
    const asked = [];
    page.on('requestfailed', (req) => failed.push(`failed ${req.method()} ${new URL(req.url()).pathname}`));
    page.on('response', (res) => {
      const path = new URL(res.url()).pathname;
      if (path.startsWith('/api/')) asked.push(`${res.request().method()} ${path.replace(/\/U[0-9a-f]{32}$/, '/{userId}')} ${res.status()}`);
      if (res.status() >= 400) failed.push(`${res.status()} ${res.request().method()} ${path}`);
    });
    await page.goto(`${base}/today`);
    await page.waitForURL(/\/profile$/);
    await page.locator('[data-testid="review-status"][data-status="SUSPENDED"]').waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual(failed, ['401 GET /api/user/my-info'], JSON.stringify(asked));
    for (const path of ['/api/introductions', '/api/matches', '/api/likes']) {
      assert.ok(!asked.some((a) => a.includes(` ${path} `)), `${path} asked: ${JSON.stringify(asked)}`);
    }
    await context.close();
  });

  it('a visitor who is not a friend starts no request that the move to /friend cuts off', async () => {
    const visitor = await server.mockUser({ displayName: 'Visitor', friend: false });
    const { context, page, base } = await openAs(browser, server, visitor.userId);
    const aborted = [];
    const asked = [];
    page.on('requestfailed', (req) => aborted.push(`${req.method()} ${new URL(req.url()).pathname}${new URL(req.url()).search} ${req.failure()?.errorText}`));
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname === '/api/route-rules') asked.push(url.searchParams.get('path'));
    });
    await page.goto(`${base}/`);
    await page.waitForURL(/\/friend$/);
    await page.getByTestId('friend-page').or(page.locator('main h1')).first().waitFor();
    assert.deepEqual(aborted, []);
    await checkScreen(page, 'the friend page');
    // Only /friend's own rules: nothing asked about the page the visitor was sent away from.
    assert.deepEqual(asked, ['/friend']);
    await context.close();
  });

  it('going back from a profile never shows "no longer available" and logs no E003', async () => {
    const { context, page, base } = await openAs(browser, server, mei.user.userId);
    await context.addInitScript(() => {
      window.__goneShown = false;
      new MutationObserver(() => {
        if (document.querySelector('[data-testid="mm-gone"]')) window.__goneShown = true;
      }).observe(document, { childList: true, subtree: true });
    });
    const warnings = [];
    page.on('console', (msg) => {
      if (/E003/.test(msg.text())) warnings.push(msg.text());
    });
    await page.goto(`${base}/today`);
    await page.getByTestId('introduction').first().waitFor();
    // The server answers slowly, as a phone's link does: Back takes a while to be let through.
    await page.route('**/api/**', async (route) => {
      await new Promise((r) => setTimeout(r, 300));
      await route.continue();
    });
    for (let i = 0; i < 3; i++) {
      await page.getByTestId('view-profile').first().click();
      await page.getByTestId('member-profile').waitFor();
      await checkScreenOnce(page, "an introduction's profile");
      await page.getByTestId('back').click();
      await page.waitForURL(/\/today$/);
      await page.getByTestId('introduction').first().waitFor();
      // The browser's own Back (the phone's gesture) too.
      await page.getByTestId('view-profile').first().click();
      await page.getByTestId('member-profile').waitFor();
      await page.goBack();
      await page.waitForURL(/\/today$/);
      await page.getByTestId('introduction').first().waitFor();
    }
    assert.equal(await page.evaluate(() => window.__goneShown), false, '"no longer available" flashed');
    assert.deepEqual(warnings, []);
    await context.close();
  });

  it('an empty /today says when the next introductions come, in the member’s own time zone, and what to do meanwhile; an empty Matches leads to Today', async () => {
    const config = await server.json('/api/config');
    assert.match(config.body.introductionsAt, /^\d\d:\d\d$/);
    const { context, page, base } = await openAs(browser, server, ren.user.userId, { timezoneId: 'Asia/Tokyo' });
    await page.goto(`${base}/today`);
    const empty = page.getByTestId('today-empty');
    await empty.waitFor();
    // Tokyo is an hour ahead of Taipei: the server's HH:MM shows an hour later.
    const [h, m] = config.body.introductionsAt.split(':').map(Number);
    const tokyo = `${(h + 1) % 24 === 0 ? 12 : ((h + 1) % 24) % 12 || 12}:${String(m).padStart(2, '0')}`;
    const next = await page.getByTestId('today-next').innerText();
    assert.ok(next.includes(tokyo), `${next} should name ${tokyo} (Tokyo time)`);
    // One photo: the profile tip, with its link; the conditions and the likes too.
    await page.getByTestId('today-tip-profile').waitFor();
    await shots(page, 'today-empty');
    await page.getByTestId('today-tip-conditions').getByRole('link').click();
    await page.waitForURL(/\/profile$/);
    await page.getByTestId('profile-conditions').waitFor();
    assert.match(await page.getByTestId('profile-conditions').innerText(), /Within 30 km/);

    await page.locator('[data-testid="bottom-nav"] a[data-tab="matches"]').click();
    await page.getByTestId('matches-empty').waitFor();
    await shots(page, 'matches-empty');
    await page.getByTestId('matches-empty-today').click();
    await page.waitForURL(/\/today$/);
    await empty.waitFor();
    await context.close();
  });

  it('the reviewers’ console translates the history, shows the location as one row with a map link, 0 km as any distance, steady reason boxes and 44 px controls', async () => {
    // Mei reports Kai, so that the report queue has a reported member's link.
    const intro = await server.json('/api/introductions', { headers: mei.auth });
    const kaiId = intro.body.introductions.find((i) => i.member.nickname === 'Kai').member.memberId;
    const reported = await server.json('/api/reports', { method: 'POST', headers: mei.auth, body: JSON.stringify({ memberId: kaiId, reasons: ['FAKE_PROFILE'] }) });
    assert.ok(reported.status < 300, JSON.stringify(reported.body));
    // A PENDING profile, so that the decision form offers the reject reasons.
    await registerByApi(server, { nickname: 'Noa', gender: 'FEMALE', matchGender: 'MALE' });
    const reports = await server.json('/api/review/reports', { headers: reviewerAuth });
    const kaiProfile = reports.body.items.find((r) => r.target.nickname === 'Kai').target.profileId;
    const queue = await server.json('/api/review/queue', { headers: reviewerAuth });
    const noaProfile = queue.body.items.find((i) => i.nickname === 'Noa').profileId;
    const rev = await server.mockUser({ displayName: 'Rei' });
    await server.json('/__mock/reviewers', { method: 'POST', body: JSON.stringify({ userId: rev.userId }) });

    /** Controls a reviewer taps that are under 44 px either way. */
    const small = (page) =>
      page.evaluate(() =>
        [...document.querySelectorAll('main a, main button, main label.check, main label.chip, main select, main textarea')]
          .filter((el) => el.getClientRects().length && !el.closest('.sr-only, .skip-link'))
          .map((el) => ({ el, r: el.getBoundingClientRect() }))
          .filter(({ r }) => r.height < 44 || r.width < 44)
          .map(({ el, r }) => `${el.tagName} "${el.textContent.trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`),
      );

    for (const [locale, steps, raw] of [
      ['en-US', ['Submitted', 'Approved'], 'Any distance'],
      ['ja-JP', ['提出', '承認'], '距離は問わない'],
      ['zh-TW', ['已送出', '已核准'], '距離不限'],
    ]) {
      const { context, page, base } = await openAs(browser, server, rev.userId, { locale });
      await page.goto(`${base}/review?profile=${kaiProfile}`);
      const detail = page.getByTestId('review-detail');
      await detail.waitFor();
      await checkScreenOnce(page, 'a profile in the review console');
      const history = await page.getByTestId('history-step').allInnerTexts();
      assert.deepEqual(history, steps, `${locale} history`);
      for (const word of ['PENDING', 'APPROVE', 'REJECT', 'RESUBMIT']) assert.ok(!history.some((h) => h.includes(word)), `${locale}: ${history}`);
      assert.equal(await page.locator('[data-field="longitude"]').count(), 0);
      const location = page.locator('[data-testid="profile-fields"] [data-field="latitude"]');
      assert.equal(await location.count(), 1);
      const href = await location.getByTestId('location-map').getAttribute('href');
      assert.match(href, /^https:\/\/www\.openstreetmap\.org\/\?mlat=25\.04120&mlon=121\.53210/);
      assert.equal((await page.locator('[data-testid="profile-fields"] [data-field="recommendDistanceKm"] dd').innerText()).trim(), raw);
      if (locale === 'en-US') {
        await location.scrollIntoViewIfNeeded();
        await shots(page, 'review-location');
        await page.getByTestId('history').scrollIntoViewIfNeeded();
        await shots(page, 'review-history');
        assert.deepEqual(await small(page), []);
        // The reported member's link on the reports tab.
        await page.getByTestId('tab-reports').click();
        const link = page.getByTestId('report-open-profile').first();
        await link.waitFor();
        const box = await link.boundingBox();
        assert.ok(box.height >= 44 && box.width >= 44, `reported member's link ${box.width}×${box.height}`);
        assert.deepEqual(await small(page), []);
        // A PENDING profile: the reject reasons keep their box size at 320 px, however they wrap.
        await page.setViewportSize({ width: 320, height: 700 });
        await page.goto(`${base}/review?profile=${noaProfile}`);
        await page.getByTestId('decision-form').waitFor();
        await page.locator('label.chip', { hasText: 'Reject' }).click();
        const boxes = await page.locator('.decision-form .check input').evaluateAll((inputs) => inputs.map((i) => `${Math.round(i.getBoundingClientRect().width)}×${Math.round(i.getBoundingClientRect().height)}`));
        assert.ok(boxes.length > 2, 'reject reasons shown');
        assert.deepEqual([...new Set(boxes)], ['20×20'], boxes.join(' '));
        assert.deepEqual(await small(page), []);
        if (SCREENSHOTS) await page.getByTestId('decision-form').screenshot({ path: join(SCREENSHOT_DIR, 'review-reject-reasons-320.png') });
      }
      await context.close();
    }
  });
});
