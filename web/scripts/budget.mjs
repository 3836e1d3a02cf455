// `just web-budget`: the budget figures of /register and of an approved member's app, measured
// where the user pays them.
//  1. Bytes on the wire (CDP `encodedDataLength`: compressed bodies plus headers, as the browser
//     received them) of every request a new user's visit makes until the /register form is usable
//     — HTML, JS, CSS, wasm, API answers, images, everything — against the release server with the
//     Accept-Encoding Chromium sends;
//  2. the Lighthouse (npm package, Debian Chromium, mobile preset) performance score of /register,
//     median of 3 runs;
//  3. a tab switch of an approved member (Today, Likes, Matches, Profile in turn): from the tap to
//     the next tab's content on screen, median of ten, on a link with 150 ms round trips (CDP
//     network emulation);
//  4. a cold /today on a slow link (400 ms round trips, 400 kbit/s both ways, an empty browser
//     cache, the cookies an earlier opening left): the time to the page's frame (first paint) and
//     to the first introduction's card.
// The server runs as `scripts/dev.sh up` runs it (`just up`: the release binary, mock LINE, the
// built web/dist), on a temp data dir. Exit 1 when out of budget.
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { KizunaServer, launchBrowser, openAs, CHROMIUM, CHROMIUM_ARGS } from '../e2e/harness.mjs';
import { approveAll, registerByApi } from '../e2e/members.mjs';

const BYTES_BUDGET = 150 * 1024;
const SCORE_BUDGET = 95;
const TAB_SWITCH_BUDGET_MS = 300;
const FRAME_BUDGET_MS = 1000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const TAB_CONTENT = {
  today: '[data-testid="introductions"], [data-testid="today-empty"]',
  likes: '[data-testid="likes-sent"], [data-testid="likes-received"], [data-testid="likes-empty"]',
  matches: '[data-testid="matches"], [data-testid="matches-empty"]',
  profile: '[data-testid="review-status"]',
};

/** Tap `tab` in the bottom bar and time, in the page, until its content is on screen. */
function switchTab(page, tab) {
  return page.evaluate(
    ([name, selector]) =>
      new Promise((resolve) => {
        const start = performance.now();
        document.querySelector(`[data-testid="bottom-nav"] a[data-tab="${name}"]`).click();
        const look = () => (location.pathname === `/${name}` && document.querySelector(selector) ? resolve(performance.now() - start) : requestAnimationFrame(look));
        look();
      }),
    [tab, TAB_CONTENT[tab]],
  );
}

/** 3 and 4: an approved member with someone to be introduced to. */
async function memberFigures(browser) {
  const member = await registerByApi(server, { nickname: 'Mei', gender: 'FEMALE', matchGender: 'MALE' });
  await registerByApi(server, { nickname: 'Kai', gender: 'MALE', matchGender: 'FEMALE' });
  await approveAll(server);
  let bad = false;

  // 3. tab switches at 150 ms round trips
  const session = await openAs(browser, server, member.user.userId);
  await session.page.goto(`${server.base}/today`);
  await session.page.locator(TAB_CONTENT.today).first().waitFor({ timeout: 30_000 });
  const cdp = await session.context.newCDPSession(session.page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: -1, uploadThroughput: -1 });
  const order = ['likes', 'matches', 'profile', 'today'];
  const switches = [];
  for (let i = 0; i < 10; i++) switches.push(await switchTab(session.page, order[i % order.length]));
  const tab = median(switches);
  console.log(`tab switch at 150 ms round trips: median ${tab.toFixed(0)} ms of [${switches.map((ms) => ms.toFixed(0)).join(', ')}] (budget ≤ ${TAB_SWITCH_BUDGET_MS} ms)`);
  if (tab > TAB_SWITCH_BUDGET_MS) bad = true;
  const cookies = await session.context.cookies();
  await session.context.close();

  // 4. cold /today on a slow link, as a member opening the app the next morning
  const cold = await openAs(browser, server, member.user.userId);
  await cold.context.addCookies(cookies);
  await cold.context.addInitScript(() => {
    new MutationObserver(() => {
      if (!window.__firstCardAt && document.querySelector('[data-testid="introduction"]')) window.__firstCardAt = performance.now();
    }).observe(document, { childList: true, subtree: true });
  });
  const slow = await cold.context.newCDPSession(cold.page);
  await slow.send('Network.enable');
  await slow.send('Network.setCacheDisabled', { cacheDisabled: true });
  const kbit400 = (400 * 1000) / 8;
  await slow.send('Network.emulateNetworkConditions', { offline: false, latency: 400, downloadThroughput: kbit400, uploadThroughput: kbit400 });
  await cold.page.goto(`${server.base}/today`);
  await cold.page.locator('[data-testid="introduction"]').first().waitFor({ timeout: 60_000 });
  // The first paint is the frame: index.html carries it as markup (its card shapes), before any script.
  const { frame, card } = await cold.page.evaluate(() => ({
    frame: performance.getEntriesByType('paint').find((p) => p.name === 'first-paint')?.startTime ?? NaN,
    card: window.__firstCardAt ?? NaN,
  }));
  console.log(`cold /today at 400 ms round trips and 400 kbit/s: frame ${frame.toFixed(0)} ms (budget ≤ ${FRAME_BUDGET_MS} ms), first card ${card.toFixed(0)} ms`);
  if (!(frame <= FRAME_BUDGET_MS)) bad = true;
  await cold.context.close();
  return bad;
}

const server = new KizunaServer();
await server.start();
let failed = false;
try {
  // 1. bytes on the wire until the form is usable
  const browser = await launchBrowser({ screens: false });
  const user = await server.mockUser();
  const { page, context } = await openAs(browser, server, user.userId);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const requests = new Map();
  const finished = [];
  cdp.on('Network.requestWillBeSent', (e) => requests.set(e.requestId, { url: e.request.url }));
  cdp.on('Network.responseReceived', (e) => {
    const r = requests.get(e.requestId);
    if (r) Object.assign(r, { status: e.response.status, encoding: e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding'] ?? '' });
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = requests.get(e.requestId);
    if (r) finished.push({ ...r, bytes: e.encodedDataLength });
  });
  cdp.on('Network.loadingFailed', (e) => {
    const r = requests.get(e.requestId);
    if (r) finished.push({ ...r, bytes: 0, failed: e.errorText });
  });
  await page.goto(`${server.base}/register`);
  // Usable: the first step is drawn and its first field takes input.
  // A newcomer's first screen is the welcome; the form is usable once Start opened step 1.
  const start = page.getByTestId('welcome-start');
  const step = page.locator('#register-step-title[data-step="basics"]');
  await start.or(step).first().waitFor({ timeout: 30_000 });
  if (await start.isVisible()) await start.click();
  await step.waitFor({ timeout: 30_000 });
  await page.locator('form input:not([type=hidden])').first().waitFor({ state: 'visible' });
  const usable = [...finished];
  await context.close();
  if (await memberFigures(browser)) failed = true;
  await browser.close();
  const total = usable.reduce((n, r) => n + r.bytes, 0);
  for (const r of usable.sort((a, b) => b.bytes - a.bytes)) {
    const path = new URL(r.url).pathname;
    console.log(`  ${String(r.bytes).padStart(7)} B  ${String(r.status ?? '-').padStart(3)} ${(r.encoding || 'identity').padEnd(8)} ${path}${r.failed ? ` FAILED ${r.failed}` : ''}`);
  }
  console.log(`bytes on the wire until /register is usable: ${total} B (${(total / 1024).toFixed(1)} KB, ${usable.length} requests; budget ${BYTES_BUDGET / 1024} KB)`);
  if (total > BYTES_BUDGET) failed = true;

  // 2. Lighthouse, mobile preset (the default config), performance only
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: CHROMIUM_ARGS.filter((f) => f !== '--headless').concat(['--headless=new']) });
  try {
    const runs = Number(process.env.LIGHTHOUSE_RUNS || 3);
    const scores = [];
    for (let i = 0; i < runs; i++) {
      const result = await lighthouse(`${server.base}/register`, { port: chrome.port, onlyCategories: ['performance'], logLevel: 'error', output: 'json' });
      const lhr = result.lhr;
      const score = Math.round((lhr.categories.performance.score ?? 0) * 100);
      scores.push(score);
      const a = lhr.audits;
      console.log(`lighthouse run ${i + 1}: ${score} (FCP ${a['first-contentful-paint'].displayValue}, LCP ${a['largest-contentful-paint'].displayValue}, TBT ${a['total-blocking-time'].displayValue}, CLS ${a['cumulative-layout-shift'].displayValue}, SI ${a['speed-index'].displayValue}, transfer ${Math.round((a['total-byte-weight'].numericValue ?? 0) / 1024)} KB)`);
    }
    const score = [...scores].sort((a, b) => a - b)[Math.floor(scores.length / 2)];
    console.log(`lighthouse performance (mobile) on /register: median ${score} of [${scores.join(', ')}] (budget ≥ ${SCORE_BUDGET})`);
    if (score < SCORE_BUDGET) failed = true;
  } finally {
    await chrome.kill();
  }
} finally {
  await server.dispose();
}
process.exit(failed ? 1 : 0);
