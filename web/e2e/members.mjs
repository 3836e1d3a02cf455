// Members for the end-to-end tests that need several: registered through the real form in the
// browser (`register`) or through the API (`memberByApi`, `registerByApi`), approved by a reviewer
// through the API, and what the mock LINE platform pushed to them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkScreenOnce, openAs, pngBytes } from './harness.mjs';
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

/** A member fills the register form in the browser and submits; returns on /profile (PENDING).
 *  `basics` are the first step's fields (fillBasics' defaults otherwise); `form` the rest of
 *  completeForm's options (the proof of employment is an employee id card unless it says). */
export async function register(browser, server, basics = {}, form = {}) {
  const user = await server.mockUser({ displayName: basics.nickname ?? 'Member' });
  const session = await openAs(browser, server, user.userId);
  await session.page.goto(`${session.base}/`);
  await session.page.waitForURL(/\/register$/);
  await completeForm(session.page, { verify: 'EMPLOYEE_ID', ...form, basics });
  await session.page.getByTestId('submit').click();
  await session.page.waitForURL(/\/profile$/, { timeout: 30_000 });
  await session.page.locator('[data-testid="review-status"][data-status="PENDING"]').waitFor();
  await checkScreenOnce(session.page, '/profile, PENDING');
  return { user, ...session };
}

/** A session token for API calls as `userId` (the app's own login), as request headers. */
export async function bearer(server, userId) {
  const token = await server.idToken(userId);
  const login = await server.json('/api/user/login', { method: 'POST', headers: { 'X-Line-Id-Token': token }, body: JSON.stringify({ account: userId, password: userId }) });
  assert.equal(login.status, 200, JSON.stringify(login.body));
  return { Authorization: `Bearer ${login.body.token}` };
}

/** A new reviewer (put on the mock's reviewer list), working through the API as a laptop would. */
export async function reviewer(server, displayName = 'Reviewer') {
  const user = await server.mockUser({ displayName });
  await server.json('/__mock/reviewers', { method: 'POST', body: JSON.stringify({ userId: user.userId }) });
  return bearer(server, user.userId);
}

/** The catalogue's employer ids, in its order. */
export const EMPLOYER_IDS = JSON.parse(readFileSync(new URL('../../core/data/employers.json', import.meta.url), 'utf8')).map((e) => e.id);

/** A reviewer (`auth`, or a new one) approves every pending profile; answers how many. An approval
 *  puts an employer on record: `employerOf(item)` names it (a catalogue id, or undefined for a
 *  work e-mail's own); by default each profile gets one of its own (by its id), so that nobody in
 *  a run is anybody's colleague unless the test says so. */
export async function approveAll(server, auth, employerOf = (item) => EMPLOYER_IDS[item.profileId % EMPLOYER_IDS.length]) {
  auth ??= await reviewer(server);
  const queue = await server.json('/api/review/queue', { headers: auth });
  assert.equal(queue.status, 200);
  for (const item of queue.body.items) {
    const view = await server.json(`/api/review/profiles/${item.profileId}`, { headers: auth });
    const employer = view.body.verification.method === 'COMPANY_EMAIL' ? undefined : employerOf(item);
    const decided = await server.json(`/api/review/profiles/${item.profileId}/decision`, { method: 'POST', headers: auth, body: JSON.stringify({ action: 'APPROVE', reasons: [], employer, version: view.body.version }) });
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

/** Distinct colours for a member's photos, so that the viewer's pages differ. */
const PHOTO_COLOURS = [
  [190, 90, 110],
  [60, 120, 170],
  [90, 150, 90],
  [200, 150, 60],
];

/** A member registered through the API (what the register form sends, without driving it: the
 *  form has tests of its own), PENDING until a reviewer approves. `photos` of them (portrait PNGs,
 *  `photo(i)` the i-th one's bytes),
 *  an employee-id proof; everything else as a typical member fills it in. `latitude`: where they
 *  are (members some hundred kilometres apart are never introduced to each other). */
export async function registerByApi(server, { nickname, name = `${nickname} Secretname`, gender = 'FEMALE', matchGender = 'MALE', photos = 2, photo = (i) => pngBytes(360, 480, PHOTO_COLOURS[i % PHOTO_COLOURS.length]), birthday = '1994-07-21', height = 165, locale = 'en-US', mbti = 'ENFP', recommendDistanceKm = 30, latitude = 25.0412 }) {
  const user = await server.mockUser({ displayName: nickname });
  const idToken = await server.idToken(user.userId);
  const auth = await bearer(server, user.userId);
  const upload = async (bytes) => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'photo.png');
    const res = await fetch(`${server.base}/api/file/tempUpload`, { method: 'POST', headers: auth, body: form });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.fileName;
  };
  const names = [];
  for (let i = 0; i < photos; i++) names.push(await upload(photo(i)));
  const proof = await upload(pngBytes(64, 64));
  const payload = {
    account: user.userId, password: user.userId, nickname, name, gender, matchGender,
    occupationType: 'SOFTWARE_ENGINEERING', occupation: 'Product designer', height, incomeRange: 'INCOME_150_200',
    birthday, school: 'Secret University', education: 'MASTER', marriageRecord: 0, hasChildren: 0, smoke: 0, tattoo: 'NONE', drink: 1,
    aboutMe: `I'm ${nickname}. Weekends are for hiking, sourdough and long coffee walks along the river.`,
    personalityTagIds: [101, 104], exerciseTagIds: [204], hobbyTagIds: [301, 310], marriageTypeTagIds: [402], fertilityPlanTagIds: [502], petTagIds: [602],
    datingQuestion: 'Mountains or the sea, and why?', dailyLife: 'Design reviews, then climbing twice a week.', surprisePoint: 'I can juggle five balls.',
    city: 'TPE', address: 'No. 7 Secret Lane', latitude, longitude: 121.5321, recommendDistanceKm, mbti,
    verifyMethod: 'EMPLOYEE_ID', verifyTempFileName: proof, verifyDescription: 'Badge photo',
    photoNameList: names, valueItem: [],
  };
  const res = await fetch(`${server.base}/api/user-profile`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Line-Id-Token': idToken, 'Accept-Language': locale }, body: JSON.stringify(payload) });
  assert.equal(res.status, 200, await res.text());
  return { user, nickname, photos: names, auth };
}

/** A member registered through the API (`registerByApi`, with its options) and a phone page of
 *  their own in `browser`, not yet navigated: for the tests whose subject comes after
 *  registration. Driving the form (`register`) cost the suite about four times as much a member
 *  (24–30 s against 6 s on a loaded 2-core machine), so only the tests of the form drive it: app,
 *  a11y, keyboard, clean-visit, rough-edges, review, and the edits and returns of revisions and
 *  leaving. */
export async function memberByApi(browser, server, options) {
  const registered = await registerByApi(server, options);
  const session = await openAs(browser, server, registered.user.userId);
  return { ...registered, ...session };
}
