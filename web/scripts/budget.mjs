// `just web-budget`: the two budget figures of /register, measured where the user pays them.
//  1. Bytes on the wire (CDP `encodedDataLength`: compressed bodies plus headers, as the browser
//     received them) of every request a new user's visit makes until the /register form is usable
//     — HTML, JS, CSS, wasm, API answers, images, everything — against the release server with the
//     Accept-Encoding Chromium sends;
//  2. the Lighthouse (npm package, Debian Chromium, mobile preset) performance score of /register,
//     median of 3 runs.
// The server runs as `scripts/dev.sh up` runs it (`just up`: the release binary, mock LINE, the
// built web/dist), on a temp data dir. Exit 1 when out of budget.
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { KizunaServer, launchBrowser, openAs, CHROMIUM, CHROMIUM_ARGS } from '../e2e/harness.mjs';

const BYTES_BUDGET = 160 * 1024;
const SCORE_BUDGET = 95;

const server = new KizunaServer();
await server.start();
let failed = false;
try {
  // 1. bytes on the wire until the form is usable
  const browser = await launchBrowser();
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
  await page.locator('#register-step-title[data-step="basics"]').waitFor({ timeout: 30_000 });
  await page.locator('form input:not([type=hidden])').first().waitFor({ state: 'visible' });
  const usable = [...finished];
  await context.close();
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
