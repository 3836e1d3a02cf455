// The budget of issue 4, printed as two figures:
//  1. total gzip bytes the browser loads for the first render of /register (HTML, JS, CSS, wasm;
//     no images, fonts or API answers), each body gzipped at level 9 whatever the server sends;
//  2. the Lighthouse (npm package, Debian Chromium, mobile preset) performance score of /register.
// Starts the real server in mock mode on web/dist, like the e2e suite. Exit 1 when over budget.
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { KizunaServer, launchBrowser, openAs, CHROMIUM, CHROMIUM_ARGS } from '../e2e/harness.mjs';

const BYTES_BUDGET = 150 * 1024;
const SCORE_BUDGET = 95;

const server = new KizunaServer();
await server.start();
let failed = false;
try {
  // 1. bytes of the first render
  const browser = await launchBrowser();
  const user = await server.mockUser();
  const { page, context } = await openAs(browser, server, user.userId);
  const loaded = [];
  page.on('response', async (res) => {
    const url = new URL(res.url());
    const type = res.request().resourceType();
    const isWasm = url.pathname.endsWith('.wasm');
    if (!['document', 'script', 'stylesheet'].includes(type) && !isWasm) return;
    try {
      const body = await res.body();
      loaded.push({ path: url.pathname, raw: body.length, gzip: gzipSync(body, { level: 9 }).length });
    } catch {
      /* redirects have no body */
    }
  });
  await page.goto(`${server.base}/register`);
  await page.locator('#register-step-title[data-step="basics"]').waitFor({ timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  await context.close();
  await browser.close();
  const total = loaded.reduce((n, r) => n + r.gzip, 0);
  for (const r of loaded.sort((a, b) => b.gzip - a.gzip)) console.log(`  ${String(r.gzip).padStart(7)} B gzip  ${String(r.raw).padStart(7)} B raw  ${r.path}`);
  console.log(`first render of /register: ${total} B gzip (${(total / 1024).toFixed(1)} KB; budget ${BYTES_BUDGET / 1024} KB)`);
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
      console.log(`lighthouse run ${i + 1}: ${score} (FCP ${a['first-contentful-paint'].displayValue}, LCP ${a['largest-contentful-paint'].displayValue}, TBT ${a['total-blocking-time'].displayValue}, CLS ${a['cumulative-layout-shift'].displayValue}, SI ${a['speed-index'].displayValue})`);
    }
    const score = scores.sort((a, b) => a - b)[Math.floor((scores.length - 1) / 2)]; // median (lower middle)
    console.log(`lighthouse performance (mobile) on /register: ${score} (budget ≥ ${SCORE_BUDGET})`);
    if (score < SCORE_BUDGET) failed = true;
  } finally {
    await chrome.kill();
  }
} finally {
  await server.dispose();
}
process.exit(failed ? 1 : 0);
