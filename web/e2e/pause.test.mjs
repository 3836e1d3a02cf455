// End to end: a member takes a break from /profile and leaves the other members'
// /today at once; their own /today says they are on a break and brings them back in one tap.
// Coming back (docs/design.md, "Taking a break") puts them back at once in today's lists that had
// them, and in the lists made from then on: a list made during the break stays without them for
// its day, and the next day's list has them again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, launchBrowser, ensureScreenshotDir, openAs, SCREENSHOT_DIR, checkScreen } from './harness.mjs';
import { approveAll, registerByApi } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';

describe('Taking a break', () => {
  const server = new KizunaServer();
  let browser;

  before(async () => {
    await server.start();
    browser = await launchBrowser();
    if (SCREENSHOTS) ensureScreenshotDir();
  });

  after(async () => {
    await browser?.close();
    await server.dispose();
  });

  it('a break hides the member from the others’ /today at once; coming back is one tap, and the next day’s lists have him again', async () => {
    const registered = {
      Mei: await registerByApi(server, { nickname: 'Mei', gender: 'FEMALE', matchGender: 'MALE' }),
      Ana: await registerByApi(server, { nickname: 'Ana', gender: 'FEMALE', matchGender: 'MALE' }),
      Kai: await registerByApi(server, { nickname: 'Kai', gender: 'MALE', matchGender: 'FEMALE' }),
    };
    assert.equal(await approveAll(server), 3);
    const [mei, ana, kai] = await Promise.all(['Mei', 'Ana', 'Kai'].map((n) => openAs(browser, server, registered[n].user.userId)));
    const kaiCard = (m) => m.page.getByTestId('introduction').filter({ hasText: 'Kai' });
    const today = async (m) => {
      await m.page.goto(`${m.base}/today`);
      await m.page.locator('[data-testid="today-empty"], [data-testid="introduction"]').first().waitFor();
    };
    // Mei's list of today is made with Kai in it.
    await today(mei);
    await kaiCard(mei).waitFor();
    await checkScreen(mei.page, '/today');

    // Kai takes a break from /settings.
    await kai.page.goto(`${kai.base}/settings`);
    const toggle = kai.page.getByTestId('pause');
    await kai.page.locator('[data-testid="pause"][data-state="off"]').waitFor();
    await toggle.click();
    await kai.page.locator('[data-testid="pause"][data-state="on"]').waitFor();
    await checkScreen(kai.page, '/settings, on a break');
    if (SCREENSHOTS) {
      // The phone's screen, the break's switch in the middle of it.
      await kai.page.getByTestId('pause-card').evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await kai.page.screenshot({ path: join(SCREENSHOT_DIR, 'pause-switch.png') });
    }

    // Gone from Mei's list of today at once; Ana's list, made during the break, is without him.
    await today(mei);
    await mei.page.getByTestId('today-empty').waitFor();
    assert.equal(await kaiCard(mei).count(), 0);
    await today(ana);
    assert.equal(await kaiCard(ana).count(), 0, 'a list made during the break leaves him out');

    // Kai's /today says he is on a break.
    await kai.page.goto(`${kai.base}/today`);
    await kai.page.getByTestId('today-paused').waitFor();
    await checkScreen(kai.page, '/today on a break');
    if (SCREENSHOTS) await kai.page.screenshot({ path: join(SCREENSHOT_DIR, 'today-paused.png') });
    await kai.page.setViewportSize({ width: 320, height: 700 });
    if (SCREENSHOTS) await kai.page.screenshot({ path: join(SCREENSHOT_DIR, 'today-paused-320.png') });
    await kai.page.setViewportSize({ width: 390, height: 844 });

    // One tap brings him back: his own list, and at once Mei's list of today, which had him.
    await kai.page.getByTestId('resume').click();
    await kai.page.getByTestId('introduction').filter({ hasText: 'Mei' }).waitFor();
    await today(mei);
    await kaiCard(mei).waitFor();
    // Ana's list of today was made without him and stays so for its day.
    await today(ana);
    assert.equal(await kaiCard(ana).count(), 0, 'today’s list made during the break');

    // The next day: Ana's new list introduces him.
    await server.advanceClock(24 * 3600);
    await today(ana);
    await kaiCard(ana).waitFor();
    for (const m of [mei, ana, kai]) await m.context.close();
  });
});
