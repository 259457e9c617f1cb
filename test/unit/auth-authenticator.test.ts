/** Authenticator: unknown users cost a hash, limited attempts cost none, concurrent checks are counted and shared. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Authenticator } from '../../src/auth/authenticator.js';
import { LoginLimiter } from '../../src/auth/login-limiter.js';
import { PasswordHasher, type PasswordVerifier } from '../../src/auth/password-hasher.js';
import { newToken } from '../../src/auth/tokens.js';
import { LarderError } from '../../src/base/errors.js';
import type { IndexStore } from '../../src/store/index-store.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import type { Storage } from '../../src/store/storage.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const password = (user: string, pw: string) => ({ kind: 'password' as const, user, password: pw });

/** Counts the hashes asked for; each waits for `release` when gated. */
class CountingVerifier implements PasswordVerifier {
  calls = 0;
  private gate: Promise<void> | null = null;
  private open: () => void = () => {};

  constructor(private readonly inner: PasswordVerifier) {}

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open();
    this.gate = null;
  }

  async verify(pw: string, stored: string): Promise<boolean> {
    this.calls++;
    await this.gate;
    return this.inner.verify(pw, stored);
  }
}

describe('authenticator', () => {
  let storage: Storage;
  let meta: IndexStore;
  let hasher: PasswordHasher;
  let aliceHash: string;
  after(async () => {
    await hasher.close();
    await storage.close();
  });
  const dir = suiteTempDir('larder-auth-');

  before(async () => {
    storage = openStorage(dir);
    meta = storage.index;
    hasher = new PasswordHasher();
    aliceHash = await hasher.hash('alice-password');
    await meta.putUser({ name: 'alice', passwordHash: aliceHash, admin: false, createdAt: new Date().toISOString() });
  });

  const make = (limit = 10, verifier: PasswordVerifier = hasher, refusals: string[] = []) =>
    new Authenticator(meta, verifier, new LoginLimiter(limit, new ManualClock()), new ManualClock(), (reason) => refusals.push(reason));

  test('an unknown user name goes through the same password hash as a known one', async () => {
    const auth = make(100);
    const before = hasher.jobsFinished;
    assert.equal(await auth.authenticate(password('alice', 'wrong-password'), '10.0.0.1'), null);
    assert.equal(hasher.jobsFinished, before + 1);
    assert.equal(await auth.authenticate(password('nobody', 'wrong-password'), '10.0.0.1'), null);
    assert.equal(hasher.jobsFinished, before + 2);
    assert.equal(await auth.authenticate(password('nobody', 'alice-password'), '10.0.0.1'), null);
    assert.equal(hasher.jobsFinished, before + 3);
    assert.deepEqual(await auth.authenticate(password('alice', 'alice-password'), '10.0.0.1'), {
      user: 'alice',
      admin: false,
      tokenProjects: null,
      viaToken: false,
    });
    assert.equal(hasher.jobsFinished, before + 4);
    // Good credentials are remembered.
    assert.ok(await auth.authenticate(password('alice', 'alice-password'), '10.0.0.1'));
    assert.equal(hasher.jobsFinished, before + 4);
  });

  test('a limited attempt hashes nothing, even with the right password; unknown tokens count as failures', async () => {
    const counting = new CountingVerifier(hasher);
    // A limit of 1 a name allows the address 3 failures over all names and tokens.
    const auth = make(1, counting);
    assert.equal(await auth.authenticate({ kind: 'token', token: 'larder-nope' }, '10.0.0.2'), null);
    assert.equal(await auth.authenticate(null, '10.0.0.2'), null);
    assert.equal(await auth.authenticate(password('alice', 'guess-1'), '10.0.0.2'), null);
    assert.equal(counting.calls, 1);
    await assert.rejects(auth.authenticate(password('alice', 'alice-password'), '10.0.0.2'), (err: LarderError) => err.status === 429);
    const { token, record } = newToken('alice', { projects: null, description: null, expiresAt: null }, new Date());
    await meta.putToken(record);
    await assert.rejects(auth.authenticate({ kind: 'token', token }, '10.0.0.2'), (err: LarderError) => err.status === 429);
    assert.equal(counting.calls, 1);
    assert.ok(await auth.authenticate({ kind: 'token', token }, '10.0.0.3'));
  });

  test('concurrent guesses cannot get past the limit: checks under way count as failures', async () => {
    const counting = new CountingVerifier(hasher);
    counting.hold();
    const auth = make(3, counting);
    const guesses = Array.from({ length: 8 }, (_, i) => auth.authenticate(password('alice', `guess-${i}`), '10.0.0.4'));
    const settled = Promise.allSettled(guesses);
    await new Promise((resolve) => setImmediate(resolve));
    counting.release();
    const results = await settled;
    assert.equal(counting.calls, 3);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as LarderError).status)),
      [null, null, null, 429, 429, 429, 429, 429],
    );
  });

  test('concurrent wrong tokens cannot get past the address limit while their lookups are under way', async () => {
    const auth = make(1);
    const guesses = Array.from({ length: 5 }, (_, i) => auth.authenticate({ kind: 'token', token: `pypi-wrong-${i}` }, '10.0.0.7'));
    const results = await Promise.allSettled(guesses);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as LarderError).status)),
      [null, null, null, 429, 429],
    );
  });

  test('concurrent requests with the same good password share one hash and count no failure', async () => {
    const counting = new CountingVerifier(hasher);
    counting.hold();
    const auth = make(2, counting);
    const logins = Array.from({ length: 20 }, () => auth.authenticate(password('alice', 'alice-password'), '10.0.0.5'));
    await new Promise((resolve) => setImmediate(resolve));
    counting.release();
    const identities = await Promise.all(logins);
    assert.ok(identities.every((i) => i?.user === 'alice'));
    assert.equal(counting.calls, 1);
    assert.equal(await auth.authenticate(password('alice', 'wrong-1'), '10.0.0.5'), null);
    assert.equal(await auth.authenticate(password('alice', 'wrong-2'), '10.0.0.5'), null);
    await assert.rejects(auth.authenticate(password('alice', 'wrong-3'), '10.0.0.5'), (err: LarderError) => err.status === 429);
  });

  test('a check refused by a full hashing queue (503) is not a failed login', async () => {
    const busy: PasswordVerifier = { verify: () => Promise.reject(new LarderError('password_checks_busy', 'busy', { 'Retry-After': '1' })) };
    const refusals: string[] = [];
    const auth = make(1, busy, refusals);
    await assert.rejects(auth.authenticate(password('alice', 'alice-password'), '10.0.0.6'), (err: LarderError) => err.status === 503);
    await assert.rejects(auth.authenticate(password('alice', 'alice-password'), '10.0.0.6'), (err: LarderError) => err.status === 503);
    assert.deepEqual(refusals, ['hashing_busy', 'hashing_busy']);
  });

  test('every 429 is told as rate_limited; a failed login or a success is no refusal', async () => {
    const refusals: string[] = [];
    const auth = make(2, hasher, refusals);
    assert.ok(await auth.authenticate(password('alice', 'alice-password'), '10.0.0.7'));
    for (let i = 0; i < 2; i++) assert.equal(await auth.authenticate(password('alice', `wrong-${i}`), '10.0.0.7'), null);
    assert.deepEqual(refusals, []);
    await assert.rejects(auth.authenticate(password('alice', 'alice-password'), '10.0.0.7'), (err: LarderError) => err.status === 429);
    await assert.rejects(auth.authenticate(password('alice', 'wrong-3'), '10.0.0.7'), (err: LarderError) => err.status === 429);
    assert.deepEqual(refusals, ['rate_limited', 'rate_limited']);
  });

  test('the right password clears the failures of that name from that address', async () => {
    const auth = make(2);
    assert.equal(await auth.authenticate(password('alice', 'wrong-1'), '10.0.0.8'), null);
    assert.ok(await auth.authenticate(password('alice', 'alice-password'), '10.0.0.8'));
    assert.equal(await auth.authenticate(password('alice', 'wrong-2'), '10.0.0.8'), null);
    // Without the clearing, wrong-1 and wrong-2 would have used up the two failures allowed.
    assert.equal(await auth.authenticate(password('alice', 'wrong-3'), '10.0.0.8'), null);
    await assert.rejects(auth.authenticate(password('alice', 'wrong-4'), '10.0.0.8'), (err: LarderError) => err.status === 429);
  });
});
