/**
 * Failed logins over HTTP: 429 with Retry-After per client address and per user name (uploads, the admin
 * API, reads with LARDER_READ_AUTH), lifted when the ManualClock moves on.
 * Requests come from different loopback source addresses (127.0.0.x), as Linux allows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { type Answer, requestFrom as send } from '../helpers/request-from.js';

const LOCKED_ADDRESS = 'Too many failed logins from this address; try again in 60 s.';
const LOCKED_USER = 'Too many failed logins for this user name; try again in 60 s.';

function assertLocked(a: Answer, message: string, retryAfter = '60'): void {
  assert.equal(a.status, 429, `${a.status} ${a.reason}`);
  assert.equal(a.retryAfter, retryAfter);
  assert.equal(a.reason, message.replace(/in 60 s/, `in ${retryAfter} s`));
  assert.equal(a.body.trim(), a.reason);
}

describe('login limits', () => {
  let server: TestLarder;
  const clock = new ManualClock();
  const alice = basicAuth('alice', 'alice-password');

  before(async () => {
    server = await startLarder({}, undefined, { clock });
    await server.addUser('alice', 'alice-password');
    await server.addUser('bob', 'bob-password');
  });
  after(() => server.close());

  test('ten failed logins from one address, then 429 with Retry-After for everything from it, until a minute passes', async () => {
    const admin = `${server.url}/api/projects/no-such-project`;
    const from = '127.0.0.2';
    for (let i = 0; i < 10; i++) {
      const a = await send(admin, { method: 'DELETE', auth: basicAuth(`nobody-${i}`, 'guess'), from });
      assert.equal(a.status, 403, `attempt ${i + 1}: ${a.reason}`);
    }
    // The right password is refused too, or the lock would tell a guesser when a guess is right.
    assertLocked(await send(admin, { method: 'DELETE', auth: alice, from }), LOCKED_ADDRESS);
    assertLocked(await send(admin, { method: 'DELETE', auth: `token ${await server.addToken('alice')}`, from }), LOCKED_ADDRESS);
    assertLocked(await send(`${server.url}/legacy/`, { method: 'POST', auth: alice, from }), LOCKED_ADDRESS);
    // Anonymous reads and other addresses are not affected.
    assert.equal((await send(`${server.url}/simple/`, { from })).status, 200);
    assert.equal((await send(admin, { method: 'DELETE', auth: alice, from: '127.0.0.3' })).status, 404);

    clock.advance(59_000);
    assertLocked(await send(admin, { method: 'DELETE', auth: alice, from }), LOCKED_ADDRESS, '1');
    clock.advance(1_000);
    const again = await send(admin, { method: 'DELETE', auth: alice, from });
    assert.equal(again.status, 404, again.reason);
  });

  test('ten failed logins for one user name from ten addresses, then 429 for that name from anywhere', async () => {
    const upload = `${server.url}/legacy/`;
    for (let i = 0; i < 10; i++) {
      const a = await send(upload, { method: 'POST', auth: basicAuth('bob', `guess-${i}`), from: `127.0.1.${i + 1}` });
      assert.equal(a.status, 403, `attempt ${i + 1}: ${a.reason}`);
    }
    const bob = basicAuth('bob', 'bob-password');
    assertLocked(await send(upload, { method: 'POST', auth: bob, from: '127.0.1.50' }), LOCKED_USER);
    assertLocked(await send(upload, { method: 'POST', auth: bob, from: '127.0.1.1' }), LOCKED_USER);
    // Other names from the same addresses are fine (each address failed once).
    assert.equal((await send(upload, { method: 'POST', auth: alice, from: '127.0.1.1' })).status, 400);

    clock.advance(60_000);
    assert.equal((await send(upload, { method: 'POST', auth: bob, from: '127.0.1.50' })).status, 400);
  });
  // An unknown user name costs a password hash too: test/unit/auth-authenticator.test.ts counts the hashes, and
  // test/slow/login-timing.test.ts times both kinds of failed login over HTTP.
});

describe('login limits with LARDER_READ_AUTH=true', () => {
  let server: TestLarder;
  const clock = new ManualClock();

  before(async () => {
    server = await startLarder({ readAuth: true }, undefined, { clock });
    await server.addUser('alice', 'alice-password');
  });
  after(() => server.close());

  test('failed reads count; the eleventh read is 429 until a minute passes; /health stays open', async () => {
    const simple = `${server.url}/simple/`;
    const alice = basicAuth('alice', 'alice-password');
    assert.equal((await send(simple, { auth: alice })).status, 200);
    assert.equal((await send(simple)).status, 401);
    for (let i = 0; i < 10; i++) assert.equal((await send(simple, { auth: basicAuth('alice', `guess-${i}`) })).status, 403);
    const locked = await send(simple, { auth: alice });
    assert.equal(locked.status, 429);
    assert.equal(locked.retryAfter, '60');
    assert.equal((await send(`${server.url}/health`)).status, 200);
    clock.advance(60_000);
    assert.equal((await send(simple, { auth: alice })).status, 200);
  });
});
