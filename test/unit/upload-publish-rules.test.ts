/** Publishing rules that need no server: a wheel's METADATA against its filename, and the per-project lock. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LarderError } from '../../src/base/errors.js';
import { normalizeName } from '../../src/model/names.js';
import { KeyedLock } from '../../src/upload/keyed-lock.js';
import { checkWheelIdentity } from '../../src/upload/wheel-identity.js';

function refused(run: () => void, message: string | RegExp): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof LarderError, String(err));
    assert.equal(err.status, 400);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

describe('checkWheelIdentity', () => {
  const upload = { project: normalizeName('Acme.Widgets'), version: '1.0rc1' };
  const meta = (headers: string, body = '') => Buffer.from(`Metadata-Version: 2.1\n${headers}\n\n${body}`);

  test('equal after normalization passes (name spelling, version spelling, CRLF, BOM)', () => {
    checkWheelIdentity(meta('Name: acme_widgets\nVersion: 1.0rc1'), upload);
    checkWheelIdentity(meta('Name: ACME-Widgets\nVersion: 1.0-RC1'), upload);
    checkWheelIdentity(Buffer.from('\ufeffMetadata-Version: 2.1\r\nName: Acme.Widgets\r\nVersion: 1.0.rc1\r\n\r\n'), upload);
  });

  test('a contradiction names both values', () => {
    refused(
      () => checkWheelIdentity(meta('Name: acme-gadgets\nVersion: 1.0rc1'), upload),
      "Name 'acme-gadgets' in the wheel's METADATA does not match the project 'acme-widgets' of the filename and the form.",
    );
    refused(
      () => checkWheelIdentity(meta('Name: acme-widgets\nVersion: 1.0'), upload),
      "Version '1.0' in the wheel's METADATA does not match the version '1.0rc1' of the filename and the form.",
    );
    refused(() => checkWheelIdentity(meta('Name: acme-widgets\nVersion: not a version'), upload), /^Version 'not a version' in the wheel's METADATA/);
  });

  test('the first Name and Version in the header count; the body does not', () => {
    refused(() => checkWheelIdentity(meta('Version: 1.0rc1', 'Name: acme-widgets\n'), upload), "The wheel's METADATA has no Name field.");
    refused(() => checkWheelIdentity(meta('Name: acme-widgets'), upload), "The wheel's METADATA has no Version field.");
    checkWheelIdentity(meta('Name: acme-widgets\nSummary: one\n  Name: folded, not a field\nVersion: 1.0rc1\nName: other'), upload);
  });
});

describe('KeyedLock', () => {
  test('one task at a time per key, in order; other keys run alongside; failures do not block the queue', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    // Each task runs until the test lets it end: the order is the test's, not the timers'.
    const finish = new Map<string, () => void>();
    const task =
      (name: string, fail = false) =>
      async () => {
        events.push(`start ${name}`);
        await new Promise<void>((resolve) => finish.set(name, resolve));
        events.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const all = Promise.allSettled([lock.run('p', task('p1', true)), lock.run('p', task('p2')), lock.run('q', task('q1'))]);
    await turn();
    assert.deepEqual(events, ['start p1', 'start q1'], 'p2 waits for p1; q1 runs alongside');
    finish.get('q1')!();
    await turn();
    assert.deepEqual(events.slice(2), ['end q1'], 'p2 still waits');
    finish.get('p1')!();
    await turn();
    assert.deepEqual(events.slice(3), ['end p1', 'start p2'], 'p1 failed, p2 runs');
    finish.get('p2')!();
    const results = await all;
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual(events.slice(5), ['end p2']);
  });
});
