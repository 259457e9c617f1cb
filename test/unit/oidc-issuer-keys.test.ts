/** IssuerKeys: an issuer's key set is fetched on first need, again for an unknown key id at most once a minute (failures count), concurrent needs share one fetch. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IssuerKeys } from '../../src/auth/oidc/issuer-keys.js';
import { ManualClock } from '../helpers/manual-clock.js';

test('fetched once, again when stale only after a minute; a failure also waits a minute; concurrent needs share a fetch', async () => {
  const clock = new ManualClock();
  const asked: string[] = [];
  let fail = false;
  const keys = new IssuerKeys(async (issuer) => {
    asked.push(issuer);
    if (fail) throw new Error('unreachable');
    return { keys: [{ kty: 'EC', kid: `k${asked.length}` }] };
  }, clock);
  const [first, second] = await Promise.all([keys.keys('https://a'), keys.keys('https://a')]);
  assert.deepEqual(first, second);
  assert.equal(asked.length, 1);
  assert.equal((await keys.keys('https://a', true)).keys[0]!.kid, 'k1', 'stale within the minute: the held keys');
  assert.equal(asked.length, 1);
  await keys.keys('https://b');
  assert.deepEqual(asked, ['https://a', 'https://b'], 'per issuer');
  clock.advance(60_000);
  assert.equal((await keys.keys('https://a')).keys[0]!.kid, 'k1', 'not stale: no fetch');
  assert.equal((await keys.keys('https://a', true)).keys[0]!.kid, 'k3');
  fail = true;
  clock.advance(60_000);
  await assert.rejects(keys.keys('https://a', true), /unreachable/);
  assert.equal((await keys.keys('https://a')).keys[0]!.kid, 'k3', 'the keys held stay usable');
  assert.equal((await keys.keys('https://a', true)).keys[0]!.kid, 'k3', 'stale again within the minute: no fetch');
  await assert.rejects(keys.keys('https://c'), /unreachable/);
  await assert.rejects(keys.keys('https://c'), /less than a minute ago/, 'no keys, failed a moment ago: not asked again');
  assert.equal(asked.length, 5);
  fail = false;
  clock.advance(60_000);
  assert.equal((await keys.keys('https://c')).keys[0]!.kid, 'k6');
});
