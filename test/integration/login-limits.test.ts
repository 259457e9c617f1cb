/**
 * Failed logins over HTTP: 429 with Retry-After per client address, per (user name, address), and for an
 * address that failed for a name many addresses are guessing (uploads, the admin API, the account page,
 * reads with LARDER_READ_AUTH), lifted when the ManualClock moves on; the right password from an address
 * with no failures is never refused; refusals are counted in /metrics.
 * Requests come from different loopback source addresses (127.0.0.x), as Linux allows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { type Answer, requestFrom as send } from '../helpers/request-from.js';

const LOCKED_ADDRESS = 'Too many failed logins from this address; try again in 60 s.';
const LOCKED_PAIR = 'Too many failed logins for this user name from this address; try again in 60 s.';
const LOCKED_GUESSED = 'Too many failed logins for this user name, one of them from this address; try again in 60 s.';

function assertLocked(a: Answer, message: string, retryAfter = '60'): void {
  assert.equal(a.status, 429, `${a.status} ${a.reason}`);
  assert.equal(a.retryAfter, retryAfter);
  assert.equal(a.reason, message.replace(/in 60 s/, `in ${retryAfter} s`));
  // The API answers the message as plain text; the web pages within their page.
  assert.ok(a.body.trim() === a.reason || a.body.includes(`role="alert">${a.reason}</p>`), a.body);
}

/** The value of one sample of /metrics (0 when absent). */
async function sample(url: string, series: string): Promise<number> {
  const text = (await send(`${url}/metrics`)).body;
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
const RATE_LIMITED = 'larder_login_refusals_total{reason="rate_limited"}';
const HTTP_429 = 'larder_http_refusals_total{status="429",code="too_many_failed_logins"}';

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

  test('thirty failed logins from one address over many names, then 429 for everything from it, until a minute passes', async () => {
    const admin = `${server.url}/api/projects/no-such-project`;
    const from = '127.0.0.2';
    for (let i = 0; i < 30; i++) {
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

  test('eleven wrong passwords for alice from one address: that address waits, the right password from another gets in', async () => {
    const account = `${server.url}/account/`;
    const [guesser, elsewhere] = ['127.0.0.4', '127.0.0.5'];
    const [refusedBefore, http429Before] = [await sample(server.url, RATE_LIMITED), await sample(server.url, HTTP_429)];
    for (let i = 0; i < 10; i++) {
      const a = await send(account, { auth: basicAuth('alice', `guess-${i}`), from: guesser });
      assert.equal(a.status, 403, `attempt ${i + 1}: ${a.reason}`);
    }
    assertLocked(await send(account, { auth: basicAuth('alice', 'guess-10'), from: guesser }), LOCKED_PAIR);
    // Before, alice's name was locked for everyone: anyone could keep her out. Now her right password works
    // from an address that has not failed for her, at once.
    const in_ = await send(account, { auth: alice, from: elsewhere });
    assert.equal(in_.status, 200, in_.reason);
    assertLocked(await send(account, { auth: alice, from: guesser }), LOCKED_PAIR);
    // The guessing address may still log in as somebody else (it has 10 of its 30 failures).
    assert.equal((await send(account, { auth: basicAuth('bob', 'bob-password'), from: guesser })).status, 200);
    // Both refusals are counted, as login refusals and as 429 answers.
    assert.equal(await sample(server.url, RATE_LIMITED), refusedBefore + 2);
    await eventually(async () => (await sample(server.url, HTTP_429)) === http429Before + 2, 'two more 429 answers in larder_http_refusals_total');

    clock.advance(60_000);
    assert.equal((await send(account, { auth: alice, from: guesser })).status, 200);
  });

  test('a guess spread over ten addresses: each of them waits for that name, the real user from elsewhere does not', async () => {
    const upload = `${server.url}/legacy/`;
    for (let i = 0; i < 10; i++) {
      const a = await send(upload, { method: 'POST', auth: basicAuth('bob', `guess-${i}`), from: `127.0.1.${i + 1}` });
      assert.equal(a.status, 403, `attempt ${i + 1}: ${a.reason}`);
    }
    const bob = basicAuth('bob', 'bob-password');
    // Signed in (400: the upload has no body), from an address with no failure for bob.
    assert.equal((await send(upload, { method: 'POST', auth: bob, from: '127.0.1.50' })).status, 400);
    // An address that failed for bob has one guess a minute while the spread-out guessing lasts.
    assertLocked(await send(upload, { method: 'POST', auth: bob, from: '127.0.1.1' }), LOCKED_GUESSED);
    assert.equal((await send(upload, { method: 'POST', auth: basicAuth('bob', 'guess-x'), from: '127.0.1.60' })).status, 403);
    assertLocked(await send(upload, { method: 'POST', auth: basicAuth('bob', 'guess-y'), from: '127.0.1.60' }), LOCKED_GUESSED);
    // Other names from the same addresses are fine (each address failed once).
    assert.equal((await send(upload, { method: 'POST', auth: alice, from: '127.0.1.1' })).status, 400);

    clock.advance(60_000);
    assert.equal((await send(upload, { method: 'POST', auth: bob, from: '127.0.1.1' })).status, 400);
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
