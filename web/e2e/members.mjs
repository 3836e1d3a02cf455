// Members for the end-to-end tests that need several: registered through the real form in the
// browser, approved by a reviewer through the API, and what the mock LINE platform pushed to them.
import assert from 'node:assert/strict';
import { openAs } from './harness.mjs';
import { completeForm } from './register-flow.mjs';

export async function pushesTo(server, userId) {
  const { body } = await server.json('/__mock/line/messages');
  return body.filter((m) => m.to === userId);
}

export async function waitFor(check, what, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A member fills the register form in the browser and submits; returns on /profile (PENDING). */
export async function register(browser, server, basics) {
  const user = await server.mockUser({ displayName: basics.nickname });
  const session = await openAs(browser, server, user.userId);
  await session.page.goto(`${session.base}/`);
  await session.page.waitForURL(/\/register$/);
  await completeForm(session.page, { verify: 'EMPLOYEE_ID', basics });
  await session.page.getByTestId('submit').click();
  await session.page.waitForURL(/\/profile$/, { timeout: 30_000 });
  await session.page.locator('[data-testid="review-status"][data-status="PENDING"]').waitFor();
  return { user, ...session };
}

/** A reviewer (made one through the mock's reviewer list) approves every pending profile. */
export async function approveAll(server) {
  const reviewer = await server.mockUser({ displayName: 'Reviewer' });
  await server.json('/__mock/reviewers', { method: 'POST', body: JSON.stringify({ userId: reviewer.userId }) });
  const token = await server.idToken(reviewer.userId);
  const login = await server.json('/api/user/login', { method: 'POST', headers: { 'X-Line-Id-Token': token }, body: JSON.stringify({ account: reviewer.userId, password: reviewer.userId }) });
  const auth = { Authorization: `Bearer ${login.body.token}` };
  const queue = await server.json('/api/review/queue', { headers: auth });
  assert.equal(queue.status, 200);
  for (const item of queue.body.items) {
    const view = await server.json(`/api/review/profiles/${item.profileId}`, { headers: auth });
    const decided = await server.json(`/api/review/profiles/${item.profileId}/decision`, { method: 'POST', headers: auth, body: JSON.stringify({ action: 'APPROVE', reasons: [], version: view.body.version }) });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
  }
  return queue.body.items.length;
}

/** What a fetch from the page (its session cookie, as the app's images load) answers. */
export async function fetchFromPage(page, url) {
  return page.evaluate(async (u) => {
    // no-store: the server's answer now, not the copy the browser cached while it was allowed
    const res = await fetch(u, { cache: 'no-store' });
    const text = await res.text();
    let code = null;
    try {
      code = JSON.parse(text).code ?? null;
    } catch {
      /* an image */
    }
    return { status: res.status, code };
  }, url);
}
