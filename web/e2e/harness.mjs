// End-to-end harness: the real kizuna-server (mock LINE mode, temp data dir, built web app) and
// Debian Chromium driven by playwright-core. No browser download, ever.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { createServer } from 'node:net';
import { deflateSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const here = dirname(fileURLToPath(import.meta.url));
export const WEB_DIR = resolve(here, '..');
export const REPO_DIR = resolve(WEB_DIR, '..');
export const SCREENSHOT_DIR = join(REPO_DIR, 'docs', 'screenshots');
export const CHROMIUM = process.env.CHROME_PATH || '/usr/bin/chromium';
export const VIEWPORT = { width: 390, height: 844 };
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

export function serverBinary() {
  if (process.env.KIZUNA_SERVER_BIN) return process.env.KIZUNA_SERVER_BIN;
  const target = process.env.CARGO_TARGET_DIR || join(REPO_DIR, 'target');
  for (const profile of ['release', 'debug']) {
    const bin = join(target, profile, 'kizuna-server');
    if (existsSync(bin)) return bin;
  }
  execFileSync('cargo', ['build', '-p', 'kizuna-server'], { cwd: REPO_DIR, stdio: 'inherit' });
  return join(target, 'debug', 'kizuna-server');
}

export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

/** A test file takes minutes (the accessibility file some 4.5 minutes on CI, more on a loaded machine).
 *  One that starts this close to Taipei's midnight waits for it first: at midnight every member's
 *  list of introductions becomes the new day's, without those of the day before (docs/design.md,
 *  Matchmaking), so a file that made its members' lists before it and opened /today after it saw
 *  an empty list (CI, 2026-11-28 16:00 UTC: the accessibility file's zh-TW part). */
export const MIDNIGHT_GUARD_MS = 10 * 60_000;
const DAY_MS = 86_400_000;
const TAIPEI_MS = 8 * 3_600_000;

/** Milliseconds from `now` (ms since the epoch) to the next midnight in Asia/Taipei (UTC+8, no
 *  daylight saving time), in (0, one day]. */
export function untilTaipeiMidnight(now) {
  return DAY_MS - ((now + TAIPEI_MS) % DAY_MS);
}

/** The servers of this process not disposed yet (a failed check disposes of them itself). */
const liveServers = new Set();

/** One server: start, stop, restart on the same port and data dir. */
export class KizunaServer {
  /** `pickPort`: where a first start's port comes from (a test of the harness hands out a taken one).
   *  `afterSpawn`: runs the moment a server process is spawned (a test of the harness stalls there,
   *  as a loaded machine may stall this process). `now`: the time a first start compares with
   *  Taipei's midnight (a test of the harness starts three seconds before it). */
  constructor({ pickPort = freePort, afterSpawn = () => {}, now = Date.now } = {}) {
    this.pickPort = pickPort;
    this.afterSpawn = afterSpawn;
    this.now = now;
    liveServers.add(this);
    this.dataDir = mkdtempSync(join(tmpdir(), 'kizuna-e2e-'));
    this.child = null;
    this.port = 0;
    this.log = [];
  }
  get base() {
    return `http://127.0.0.1:${this.port}`;
  }
  /** Starts the server: on a port of its own the first time, on the same port after a stop (the
   *  browser's pages keep their origin). freePort's port is free when asked, not when the server
   *  binds it: a server or Chromium of the other test file running beside this one may take it in
   *  between. The server then stops at once ("Address already in use"), and the start tries a new
   *  port (the same one again, a moment later, for a restart). */
  async start() {
    const fresh = !this.port;
    if (fresh) {
      const left = untilTaipeiMidnight(this.now());
      if (left < MIDNIGHT_GUARD_MS) {
        process.stderr.write(`[e2e] waiting ${Math.ceil(left / 1000) + 2} s for Taipei's midnight: a new day's introductions would change this file's lists under it\n`);
        await new Promise((r) => setTimeout(r, left + 2_000));
      }
    }
    for (let attempt = 1; ; attempt++) {
      if (!this.port) this.port = await this.pickPort();
      try {
        await this.#launch();
        return;
      } catch (err) {
        if (attempt >= 5 || !err.portTaken) throw err;
        if (fresh) this.port = 0;
        else await new Promise((r) => setTimeout(r, 500));
      }
    }
  }
  async #launch() {
    const env = {
      ...process.env,
      KIZUNA_BIND: `127.0.0.1:${this.port}`,
      KIZUNA_DATA_DIR: this.dataDir,
      KIZUNA_WEB_DIR: join(WEB_DIR, 'dist'),
      KIZUNA_LINE_MOCK: 'true',
      RUST_LOG: process.env.RUST_LOG || 'warn',
    };
    delete env.DATABASE_URL;
    // A server that answers on the port is ours only once it has taken the data dir's serve lock
    // (after binding the port; instance.rs): before that, a healthy answer may come from whoever
    // holds the port. The lock file is removed before the spawn, while no server of this data dir
    // runs, so the file seen later is this child's; removed after it, a child quick enough (or a
    // harness slow enough) would have made its file first and lost it, healthy and never counted.
    const lock = join(this.dataDir, 'kizuna.db.serve.lock');
    rmSync(lock, { force: true });
    const child = spawn(serverBinary(), ['serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.afterSpawn();
    let said = '';
    const keep = (chunk) => {
      if (said.length < 4096) said += String(chunk);
      this.log.push(String(chunk));
      if (this.log.length > 200) this.log.shift();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    // 'close', not 'exit': what the server printed as it stopped has been read by then.
    const exited = new Promise((_, rej) =>
      child.once('close', (code) => {
        if (this.child === child) this.child = null;
        rej(Object.assign(new Error(`server exited (${code}):\n${this.log.join('')}`), { portTaken: /address already in use/i.test(said) }));
      }),
    );
    const running = () => child.exitCode === null && child.signalCode === null;
    const deadline = Date.now() + 60_000;
    let settled = false;
    // What the last poll saw, for the error: a healthy answer without the lock is another story
    // than no answer at all.
    let seen = 'no answer yet';
    const ready = (async () => {
      while (Date.now() < deadline) {
        if (settled) return;
        try {
          const res = await fetch(`${this.base}/healthz`, { signal: AbortSignal.timeout(5_000) });
          await res.body?.cancel();
          const locked = existsSync(lock);
          if (res.ok && locked && running()) return;
          seen = `/healthz ${res.status}, serve lock ${locked ? 'present' : 'absent'}, child ${running() ? 'running' : 'gone'}`;
        } catch (err) {
          seen = `/healthz unanswered (${err.cause?.code ?? err.name})`;
        }
        await new Promise((r) => setTimeout(r, 150));
      }
      // An exit already answered the start; a late timeout here would only be an unhandled rejection.
      if (settled) return;
      throw new Error(`server not healthy in time on port ${this.port} (last poll: ${seen}):\n${this.log.join('')}`);
    })();
    try {
      await Promise.race([ready, exited]);
    } finally {
      settled = true;
      child.removeAllListeners('close');
    }
  }
  async stop() {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    this.child = null;
    await new Promise((res) => {
      child.once('exit', res);
      child.kill('SIGTERM');
      setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 5000).unref();
    });
  }
  async dispose() {
    liveServers.delete(this);
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
  async json(path, init = {}) {
    const res = await fetch(`${this.base}${path}`, {
      ...init,
      headers: { 'Content-Type': 'application/json', ...(init.headers || {}) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
  /** A LINE user on the mock platform. */
  async mockUser({ userId = randomUserId(), displayName = 'E2E Tester', friend = true } = {}) {
    const r = await this.json('/__mock/line/users', { method: 'POST', body: JSON.stringify({ userId, displayName, friend }) });
    if (r.status >= 300) throw new Error(`mock user: ${r.status} ${JSON.stringify(r.body)}`);
    return { userId, displayName, friend };
  }
  async idToken(userId) {
    const r = await this.json('/__mock/line/id-token', { method: 'POST', body: JSON.stringify({ userId }) });
    return r.body.idToken;
  }
  /** Moves the server's clock forward (the mock platform's /__mock/clock): `secs` from now on. */
  async advanceClock(secs) {
    const r = await this.json('/__mock/clock', { method: 'POST', body: JSON.stringify({ advanceSecs: secs }) });
    if (r.status !== 200) throw new Error(`clock: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
  /** Runs the daily introductions now for the clock's day, morning pushes included (what the
   *  scheduler does at 06:00): {day, lists, introductions, pushes}. */
  async runIntroductions() {
    const r = await this.json('/__mock/introductions', { method: 'POST' });
    if (r.status !== 200) throw new Error(`introductions: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
  /** Runs one SQL statement on the server's SQLite database (Python's sqlite3, as the server's
   *  tests' tools): for a state the API cannot make any more, such as what a migration left. */
  sql(statement) {
    const db = join(this.dataDir, 'kizuna.db');
    const script = 'import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], timeout=10)\nprint(c.execute(sys.argv[2]).rowcount)\nc.commit()';
    return Number(execFileSync('python3', ['-c', script, db, statement], { encoding: 'utf8' }).trim());
  }
  async reviewStatus(userId) {
    const token = await this.idToken(userId);
    return this.json(`/api/user/review-status/${userId}`, { headers: { 'X-Line-Id-Token': token } });
  }
}

export function randomUserId() {
  let hex = '';
  for (let i = 0; i < 32; i++) hex += Math.floor(Math.random() * 16).toString(16);
  return `U${hex}`;
}

/** Debian's Chromium. Every page of every context it opens is watched for the screens it shows
 *  (`checkScreen`): closing the browser fails when one of them was never checked by axe. `screens:
 *  false` for a script that measures (the budget) rather than tests. */
export async function launchBrowser({ screens = true } = {}) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  if (!screens) return browser;
  const ledger = new ScreenLedger();
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    await ledger.watch(context);
    return context;
  };
  const close = browser.close.bind(browser);
  browser.close = async (options) => {
    await close(options);
    const missed = ledger.missed();
    if (!missed.length) return;
    // A run of some of a file's tests (--test-name-pattern) cannot know what the others check.
    if (process.execArgv.some((a) => /^--test-(name|skip)-pattern|^--test-only/.test(a))) return;
    // The test's `after` stops at this failure: its servers are not left running.
    await Promise.all([...liveServers].map((server) => server.dispose()));
    throw new Error(`screens shown but never checked by axe (checkScreen):\n  ${missed.join('\n  ')}`);
  };
  return browser;
}

// --- Accessibility: axe-core on every screen ------------------------------------------------

/** axe-core's own package, not the copy @axe-core/playwright pins: the newest rules (4.14 runs
 *  WCAG 2.5.3 "label in name", which 4.13 still held back as experimental). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What the app promises (docs/design.md "Accessibility"): WCAG 2.0, 2.1 and 2.2, levels A and AA. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];

/** Screens that ask for no check of their own: the start-up's frame, and `/`, which only sends
 *  the visitor on. */
const PASSING_SCREENS = new Set(['loading', 'index']);

/** In the page: the screens on display now. The route the app drew (`main[data-route]`, set by
 *  app.tsx once the guards let it through), refined by the register form's step, and each modal
 *  dialog open over it ("member › report-dialog"). Serialised into the pages: self-contained. */
function screensOnDisplay() {
  const main = document.getElementById('main');
  const route = main?.dataset.route;
  if (!route) return [];
  const step = route === 'register' ? main.querySelector('#register-step-title')?.dataset.step : undefined;
  // The form shows nothing of its own until it knows its step.
  if (route === 'register' && !step) return [];
  const screen = step ? `${route}/${step}` : route;
  const dialogs = [...document.querySelectorAll('dialog[open]')].map((d) => `${screen} › ${d.dataset.testid || d.getAttribute('aria-label') || 'dialog'}`);
  return [screen, ...dialogs];
}

/** In the page, from the first script on: reports each screen it shows to the test process. */
function watchScreens(screensOnDisplay) {
  const reported = new Set();
  let queued = false;
  const report = () => {
    queued = false;
    for (const screen of screensOnDisplay()) {
      if (reported.has(screen)) continue;
      reported.add(screen);
      window.__kizunaScreen?.(screen);
    }
  };
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    queueMicrotask(report);
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-route', 'data-step', 'open'] });
}

/** One browser's screens: each one shown (and where), each one checked. */
class ScreenLedger {
  shown = new Map();
  checked = new Set();
  async watch(context) {
    ledgers.set(context, this);
    await context.exposeBinding('__kizunaScreen', ({ page }, screen) => {
      if (!PASSING_SCREENS.has(screen.split(' › ')[0]) && !this.shown.has(screen)) this.shown.set(screen, page.url());
    });
    await context.addInitScript({ content: `(${watchScreens})(${screensOnDisplay});` });
  }
  missed() {
    return [...this.shown].filter(([screen]) => !this.checked.has(screen)).map(([screen, url]) => `${screen} (first at ${url})`);
  }
}
const ledgers = new WeakMap();

/** Waits for what moves to come to rest (a toast fading in is not yet its colours); endless
 *  animations (a spinner) are not waited for. */
async function settled(page) {
  await page.evaluate(async () => {
    const finite = document.getAnimations().filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime ?? Infinity));
    await Promise.race([Promise.allSettled(finite.map((a) => a.finished)), new Promise((r) => setTimeout(r, 2000))]);
    await document.fonts?.ready;
  });
}

/** axe-core's WCAG 2.2 A and AA rules on `page` as it is now: fails with every violation, its
 *  rule, its help and the elements it found. `what` names the screen in that message. Counts the
 *  screens on display as checked (closing the browser fails for one shown and never checked). */
export async function checkScreen(page, what) {
  await settled(page);
  const screens = await page.evaluate(screensOnDisplay);
  const results = await new AxeBuilder({ page, axeSource: AXE_SOURCE }).setLegacyMode(true).withTags(WCAG_TAGS).analyze();
  const found = results.violations.map(
    (v) => `${v.id} (${v.impact}, ${v.tags.filter((t) => /^wcag\d{3,}$/.test(t)).join(' ')}): ${v.help}\n${v.nodes
      .slice(0, 8)
      .map((n) => `    ${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`)
      .join('\n')}`,
  );
  assert.deepEqual(found, [], `axe on ${what} (${screens.join(', ') || page.url()}): ${found.length} violation(s)\n${found.join('\n')}`);
  const ledger = ledgers.get(page.context());
  for (const screen of screens) ledger?.checked.add(screen);
}

/** `checkScreen` unless every screen on display was already checked in this browser: for the
 *  shared helpers that arrive on the same screen test after test. */
export async function checkScreenOnce(page, what) {
  const ledger = ledgers.get(page.context());
  const screens = await page.evaluate(screensOnDisplay);
  if (ledger && screens.length && screens.every((s) => ledger.checked.has(s))) return;
  await checkScreen(page, what);
}

/** A page playing `userId` on the mock LINE platform, in `locale`. */
export const LAPTOP = { width: 1280, height: 800 };

/** `laptop`: a desktop browser window (reviewers work on laptops) instead of the phone;
 *  `timezoneId`: the phone's time zone (the browser's otherwise); `viewport`: another phone size;
 *  `reducedMotion: 'reduce'`: the phone's setting for less motion. */
export async function openAs(browser, server, userId, { locale = 'en-US', laptop = false, timezoneId, viewport, reducedMotion } = {}) {
  const device = laptop ? { viewport: LAPTOP, hasTouch: false, isMobile: false } : { viewport: viewport ?? VIEWPORT, hasTouch: true, isMobile: true };
  const context = await browser.newContext({ ...device, locale, deviceScaleFactor: 1, ...(timezoneId ? { timezoneId } : {}), ...(reducedMotion ? { reducedMotion } : {}) });
  await context.addInitScript((id) => {
    if (!localStorage.getItem('kizuna:mock-user')) localStorage.setItem('kizuna:mock-user', id);
  }, userId);
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('[pageerror]', err.message));
  return { context, page, base: server.base };
}

/** Pages whose file choosers Chromium hands to Playwright (see `chooseFiles`). */
const intercepting = new WeakSet();

/** Opens a file chooser with `open` (a click, a key) and picks `files` in it. Playwright turns on
 *  Chromium's file-chooser interception when a listener is first added, without waiting for it: an
 *  `open` that wins that race opens a real chooser (silent when headless) and the event never comes,
 *  which failed the keyboard test one run in two on a loaded machine. A listener kept on the page
 *  for its life, then a round trip to the page, has the interception on before `open`. */
export async function chooseFiles(page, open, files) {
  if (!intercepting.has(page)) {
    page.on('filechooser', () => {});
    intercepting.add(page);
    await page.evaluate(() => 0);
  }
  const chooser = page.waitForEvent('filechooser');
  await open();
  await (await chooser).setFiles(files);
}

/** A tiny valid PNG (solid colour), decodable by browsers and the server. */
export function pngBytes(width = 96, height = 128, rgb = [15, 118, 110]) {
  return encodePng(width, height, (x, y) => {
    const shade = (x + y) % 32 < 16 ? 1 : 0.85;
    return [rgb[0] * shade, rgb[1] * shade, rgb[2] * shade];
  });
}

/** A PNG that weighs what a phone photo does once resized: smooth light, shapes with hard edges
 *  and texture at several scales (value noise of 3 to 48 px cells, a fixed pseudo-random
 *  sequence), so that the image proxy's WebP of it is about a real photo's size at every width
 *  (Chromium's WebP q80 of it: 22 KB at 360 × 450, 36 KB at 528 × 660, 56 KB at 720 × 900; a
 *  solid colour or a fine grain alone would be a few KB at any size). */
export function photoLikePng(width = 1280, height = 1600) {
  let seed = 0x2545f491;
  const rand = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0xffffffff;
  };
  // Value noise: a random grid every `cell` px, bilinear between its points.
  const octave = (cell) => {
    const gw = Math.ceil(width / cell) + 2;
    const grid = Float32Array.from({ length: gw * (Math.ceil(height / cell) + 2) }, () => rand() - 0.5);
    return (x, y) => {
      const gx = x / cell;
      const gy = y / cell;
      const ix = Math.floor(gx);
      const iy = Math.floor(gy);
      const fx = gx - ix;
      const fy = gy - iy;
      const at = (i, j) => grid[j * gw + i];
      return (at(ix, iy) * (1 - fx) + at(ix + 1, iy) * fx) * (1 - fy) + (at(ix, iy + 1) * (1 - fx) + at(ix + 1, iy + 1) * fx) * fy;
    };
  };
  const texture = [
    [3, 10],
    [8, 12],
    [20, 14],
    [48, 18],
  ].map(([cell, amplitude]) => ({ amplitude, channels: [octave(cell), octave(cell), octave(cell)] }));
  const shapes = Array.from({ length: 40 }, () => ({ x: rand() * width, y: rand() * height, rx: 20 + rand() * 200, ry: 20 + rand() * 200, rgb: [rand() * 255, rand() * 255, rand() * 255] }));
  return encodePng(width, height, (x, y) => {
    const u = x / width;
    const v = y / height;
    let rgb = [120 + 80 * Math.sin(u * 7 + v * 3), 150 + 60 * Math.cos(v * 9 - u * 4), 200 - 90 * v];
    for (const s of shapes) if (((x - s.x) / s.rx) ** 2 + ((y - s.y) / s.ry) ** 2 < 1) rgb = rgb.map((c, i) => (c + s.rgb[i]) / 2);
    return rgb.map((c, ch) => c + texture.reduce((sum, t) => sum + 2 * t.amplitude * t.channels[ch](x, y), 0));
  });
}

/** A PNG of `width` × `height` 8-bit RGB pixels, `pixel(x, y)` giving each one's [r, g, b]. */
function encodePng(width, height, pixel) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  const byte = (n) => Math.max(0, Math.min(255, Math.round(n)));
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      raw[row + 1 + x * 3] = byte(r);
      raw[row + 2 + x * 3] = byte(g);
      raw[row + 3 + x * 3] = byte(b);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function ensureScreenshotDir() {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
}

/** Sets the viewport and waits two frames: the page's `visualViewport` resize handlers (the chat
 *  sizes itself in one) run in the next frame, and a layout read before them sees the old size. */
export async function resizeTo(page, size) {
  await page.setViewportSize(size);
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** What is wrong with the layout of the controls inside `root` (a playwright locator) on the
 *  viewport as it is: each button, link, field, tab and badge brought into view must have a box,
 *  lie within the viewport's width, not be clipped (its content wider than its box), not be
 *  covered by something else at its centre, and a button's, tab's or badge's label must stay on
 *  one line. Answers a list of problems, empty when all is well. */
export async function layoutProblems(root) {
  return root.evaluate((el) => {
    const out = [];
    const vw = document.documentElement.clientWidth;
    const LABELS = 'button, [role="tab"], [data-testid^="nav-badge"], .new-badge, .match-unread, [data-testid="match-unread"]';
    const controls = [...el.querySelectorAll(`a[href], input:not([type="hidden"]), select, textarea, ${LABELS}`)];
    if (el.matches(`a[href], ${LABELS}`)) controls.unshift(el);
    for (const c of controls) {
      if (c.getClientRects().length === 0 || getComputedStyle(c).visibility === 'hidden') continue;
      const name = c.dataset.testid || c.getAttribute('aria-label') || c.textContent.trim().slice(0, 30) || c.tagName.toLowerCase();
      c.scrollIntoView({ block: 'center', inline: 'nearest' });
      const r = c.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) {
        out.push(`${name}: no box`);
        continue;
      }
      if (r.left < -0.5 || r.right > vw + 0.5) out.push(`${name}: ${Math.round(r.left)}–${Math.round(r.right)} px, outside 0–${vw}`);
      if (!['INPUT', 'TEXTAREA', 'SELECT'].includes(c.tagName) && c.scrollWidth > c.clientWidth + 1 && getComputedStyle(c).overflowX !== 'visible') {
        out.push(`${name}: clipped, ${c.scrollWidth} px of content in ${c.clientWidth}`);
      }
      const hit = document.elementFromPoint(Math.min(Math.max(r.left + r.width / 2, 0), vw - 1), Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1));
      const labelOf = hit?.closest('label');
      if (!hit || !(c === hit || c.contains(hit) || (labelOf && labelOf.contains(c)))) out.push(`${name}: covered by <${hit?.tagName.toLowerCase()} class="${hit?.className}">`);
      if (c.matches(LABELS)) {
        // The lines of its text (an icon beside it is no line of its own).
        const texts = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
        const tops = [];
        for (let node = texts.nextNode(); node; node = texts.nextNode()) {
          if (!node.textContent.trim()) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          for (const b of range.getClientRects()) if (b.width > 0 && b.height > 0) tops.push(b.top + b.height / 2);
        }
        const lines = tops.sort((a, b) => a - b).filter((t, i, all) => i === 0 || t - all[i - 1] > 6).length;
        if (lines > 1) out.push(`${name}: its label wraps onto ${lines} lines`);
      }
    }
    return out;
  });
}
