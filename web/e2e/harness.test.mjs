// The harness itself: a server whose port another process takes before it binds starts anyway,
// and never mistakes that process for itself. Two test files run side by side, each starting
// servers on ports freePort found free a moment earlier, so this happens for real; and on a
// loaded machine the harness may stall after a spawn while its server starts.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { KizunaServer, freePort, untilTaipeiMidnight, MIDNIGHT_GUARD_MS } from './harness.mjs';

/** A stranger on a port: answers 200 to everything, /healthz included. */
async function stranger() {
  const srv = createServer((_, res) => res.end('{}'));
  await new Promise((res) => srv.listen(0, '127.0.0.1', res));
  return { port: srv.address().port, close: () => closed(srv) };
}

function closed(srv) {
  srv.closeAllConnections();
  return new Promise((res) => srv.close(res));
}

// A harness that took the stranger for its server would hang a test rather than fail it.
const bounded = { timeout: 120_000 };

describe('the e2e harness', () => {
  const servers = [];
  after(async () => {
    for (const s of servers) await s.dispose();
  });

  it('a first start whose port was taken since it was found free starts on another port, and is the server it started', bounded, async () => {
    const taken = await stranger();
    let picks = 0;
    const server = new KizunaServer({ pickPort: () => (picks++ === 0 ? taken.port : freePort()) });
    servers.push(server);
    try {
      await server.start();
      assert.equal(picks, 2, 'a second port was asked for');
      assert.notEqual(server.port, taken.port);
      // Only the real server mints a mock LINE user's id token (the stranger answers `{}`).
      const user = await server.mockUser();
      assert.match(await server.idToken(user.userId), /^[\w-]+\.[\w-]+\.[\w-]+$/);
    } finally {
      await taken.close();
    }
  });

  it('a restart whose port was taken meanwhile never takes the stranger for itself, and starts once the port is free', bounded, async () => {
    const server = new KizunaServer();
    servers.push(server);
    await server.start();
    const port = server.port;
    await server.stop();

    const taken = createServer((_, res) => res.end('{}'));
    await new Promise((res) => taken.listen(port, '127.0.0.1', res));
    // The stranger answers /healthz with 200 all along: the start must still see its own server fail.
    await assert.rejects(server.start(), /address already in use/i);
    await closed(taken);

    await server.start();
    assert.equal(server.port, port, 'a restart keeps its origin');
    const user = await server.mockUser();
    assert.match(await server.idToken(user.userId), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('a server that is up before the harness looks is counted as up, at a start and at a restart', bounded, async () => {
    // The harness stalls 3 s after each spawn (the server binds and takes its lock within that):
    // CI once waited 60 s for a healthy server whose serve lock the harness had deleted after it
    // was made.
    const stall = () => {
      const until = Date.now() + 3_000;
      while (Date.now() < until);
    };
    const server = new KizunaServer({ afterSpawn: stall });
    servers.push(server);
    const began = Date.now();
    await server.start();
    await server.stop();
    await server.start();
    assert.ok(Date.now() - began < 50_000, `two starts took ${Date.now() - began} ms`);
    const user = await server.mockUser();
    assert.match(await server.idToken(user.userId), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('counts the time to the next midnight in Taipei, which is 16:00 UTC', () => {
    assert.equal(untilTaipeiMidnight(Date.UTC(2026, 10, 28, 15, 59, 0)), 60_000);
    assert.equal(untilTaipeiMidnight(Date.UTC(2026, 10, 28, 16, 0, 0)), 86_400_000);
    assert.equal(untilTaipeiMidnight(Date.UTC(2026, 10, 28, 16, 0, 1)), 86_399_000);
    assert.equal(untilTaipeiMidnight(Date.UTC(2026, 10, 28, 4, 0, 0)), 12 * 3_600_000);
    // The year's last midnight, the guard's ten minutes before it.
    assert.equal(untilTaipeiMidnight(Date.UTC(2026, 11, 31, 15, 50, 0)), 10 * 60_000);
  });

  it("a file that starts its server within minutes of Taipei's midnight starts it just after", bounded, async () => {
    // The harness believes it is three seconds before midnight in Taipei (CI once made the
    // accessibility file's lists before it and opened /today after it: an empty list).
    const began = Date.now();
    const server = new KizunaServer({ now: () => Date.UTC(2026, 10, 28, 15, 59, 57) + (Date.now() - began) });
    servers.push(server);
    assert.ok(3_000 < MIDNIGHT_GUARD_MS);
    await server.start();
    const waited = Date.now() - began;
    assert.ok(waited >= 5_000, `started after ${waited} ms, before the midnight (3 s) and its margin (2 s)`);
    const user = await server.mockUser();
    assert.match(await server.idToken(user.userId), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });
});
