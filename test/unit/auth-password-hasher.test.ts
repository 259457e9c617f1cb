/** PasswordHasher: scrypt on its own worker thread, the stored format, the bounded queue, closing and unref. */
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { PasswordHasher } from '../../src/auth/password-hasher.js';
import { dummyHash, parseHash } from '../../src/auth/passwords.js';
import { LarderError } from '../../src/base/errors.js';
import { runCommand } from '../fixtures/clients.js';
import { basicAuth, startLarder } from '../helpers/larder.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** What the code before the worker wrote: node's scrypt with N=16384, r=8, p=1, 16-byte salt, 32-byte key. */
function legacyHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 });
  return ['scrypt', 16384, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
}

describe('password hasher', () => {
  test('hashes in the stored format and verifies, compatible both ways with plain scrypt', async () => {
    const hasher = new PasswordHasher();
    try {
      const stored = await hasher.hash('correct horse');
      assert.match(stored, /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
      assert.equal(await hasher.verify('correct horse', stored), true);
      assert.equal(await hasher.verify('correct horsf', stored), false);
      const parsed = parseHash(stored)!;
      assert.deepEqual(scryptSync('correct horse', parsed.salt, 32, { N: 16384, r: 8, p: 1 }), parsed.key);
      const old = legacyHash('pässwörd ünicode');
      assert.equal(await hasher.verify('pässwörd ünicode', old), true);
      assert.equal(await hasher.verify('passwort', old), false);
      assert.equal(await hasher.verify('anything', 'not-a-hash'), false);
      assert.equal(hasher.jobsFinished, 5);
    } finally {
      await hasher.close();
    }
  });

  test('the dummy hash has the real parameters and matches no password', async () => {
    const dummy = parseHash(dummyHash())!;
    assert.deepEqual(dummy.params, { N: 16384, r: 8, p: 1 });
    assert.equal(dummy.key.length, 32);
    const hasher = new PasswordHasher();
    try {
      assert.equal(await hasher.verify('', dummyHash()), false);
    } finally {
      await hasher.close();
    }
  });

  test('a full queue is refused at once with 503 and Retry-After; the rest completes', async () => {
    const hasher = new PasswordHasher({ threads: 1, maxQueue: 2 });
    try {
      const stored = legacyHash('pw-123456');
      const jobs = Array.from({ length: 6 }, () => hasher.verify('pw-123456', stored));
      const results = await Promise.allSettled(jobs);
      // One runs, two wait, three find the queue full.
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected'],
      );
      for (const r of results.slice(3)) {
        const err = (r as PromiseRejectedResult).reason as LarderError;
        assert.ok(err instanceof LarderError);
        assert.equal(err.status, 503);
        assert.match(err.headers['Retry-After']!, /^[1-9]\d*$/);
        assert.match(err.message, /^Too many passwords are being checked at the moment; try again in \d+ s\.$/);
      }
      assert.equal(hasher.jobsFinished, 3);
      assert.equal(await hasher.verify('pw-123456', stored), true);
    } finally {
      await hasher.close();
    }
  });

  test('close refuses queued and later jobs and stops the workers', async () => {
    const hasher = new PasswordHasher({ threads: 1 });
    const jobs = Promise.allSettled([hasher.hash('one-password'), hasher.hash('two-password')]);
    await hasher.close();
    const [running, queued] = await jobs;
    assert.equal(running!.status, 'rejected');
    assert.match(String((queued as PromiseRejectedResult).reason), /closed/);
    await assert.rejects(hasher.hash('three-password'), /closed/);
  });

  test('an idle hasher does not keep the process alive; a busy one finishes its job', async () => {
    const script = `
      const { PasswordHasher } = await import(${JSON.stringify(`${REPO}src/auth/password-hasher.ts`)});
      const hasher = new PasswordHasher();
      const stored = await hasher.hash('a-long-password');
      console.log(stored.slice(0, 6), await hasher.verify('a-long-password', stored));
      // No close: the process must still exit.
    `;
    const r = await runCommand(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { cwd: REPO, timeoutMs: 20_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'scrypt true');
  });

  test("Larder.close stops the app's hashing worker", { skip: !existsSync('/proc/self/task') && 'needs Linux /proc' }, async () => {
    const threads = () => readdirSync('/proc/self/task').length;
    const server = await startLarder();
    try {
      const before = threads();
      const res = await fetch(`${server.url}/api/projects/x`, { method: 'DELETE', headers: { Authorization: basicAuth('nobody', 'guess') } });
      assert.equal(res.status, 403);
      const working = threads();
      assert.equal(working, before + 1, 'the first password check starts one worker thread');
      await server.larder.close(100);
      assert.equal(threads(), working - 1);
    } finally {
      await server.close();
    }
  });
});
