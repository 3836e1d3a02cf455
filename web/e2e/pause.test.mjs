// Issue 21 §3 end to end: a member takes a break from /profile and leaves the other member's
// /today at once; their own /today says they are on a break and brings them back in one tap.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KizunaServer, launchBrowser, ensureScreenshotDir, SCREENSHOT_DIR } from './harness.mjs';
import { approveAll, register } from './members.mjs';

const SCREENSHOTS = process.env.KIZUNA_SCREENSHOTS !== '0';

describe('Taking a break (issue 21)', () => {
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

  it('a break hides the member from the other’s /today at once, and coming back is one tap', async () => {
    const mei = await register(browser, server, { nickname: 'Mei', name: 'Lin Mei', gender: 'FEMALE', matchGender: 'MALE' });
    const kai = await register(browser, server, { nickname: 'Kai', name: 'Chen Kai', gender: 'MALE', matchGender: 'FEMALE' });
    assert.equal(await approveAll(server), 2);
    const kaiCard = () => mei.page.getByTestId('introduction').filter({ hasText: 'Kai' });
    await mei.page.goto(`${mei.base}/today`);
    await kaiCard().waitFor();

    // Kai takes a break from /profile.
    await kai.page.goto(`${kai.base}/profile`);
    const toggle = kai.page.getByTestId('pause');
    await kai.page.locator('[data-testid="pause"][data-state="off"]').waitFor();
    await toggle.click();
    await kai.page.locator('[data-testid="pause"][data-state="on"]').waitFor();
    if (SCREENSHOTS) await kai.page.getByTestId('pause-card').screenshot({ path: join(SCREENSHOT_DIR, 'pause-switch.png') });

    // Gone from Mei's list of today.
    await mei.page.reload();
    await mei.page.getByTestId('today-empty').waitFor();
    assert.equal(await kaiCard().count(), 0);

    // Kai's /today says he is on a break.
    await kai.page.goto(`${kai.base}/today`);
    await kai.page.getByTestId('today-paused').waitFor();
    if (SCREENSHOTS) await kai.page.screenshot({ path: join(SCREENSHOT_DIR, 'today-paused.png') });
    await kai.page.setViewportSize({ width: 320, height: 700 });
    if (SCREENSHOTS) await kai.page.screenshot({ path: join(SCREENSHOT_DIR, 'today-paused-320.png') });

    // One tap brings him back: his list, and Mei's list has him again.
    await kai.page.getByTestId('resume').click();
    await kai.page.getByTestId('introduction').filter({ hasText: 'Mei' }).waitFor();
    await mei.page.reload();
    await kaiCard().waitFor();
    await mei.context.close();
    await kai.context.close();
  });
});
