/**
 * A failed login for a user name that does not exist takes about as long as one for a real user (both hash a
 * password), so the time of a 403 does not tell which names exist. Slow tier: it compares wall-clock times.
 * Each attempt comes from its own loopback address (127.0.2.x), below the per-address limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { requestFrom } from '../helpers/request-from.js';

describe('login timing', () => {
  let server: TestLarder;

  before(async () => {
    server = await startLarder({}, undefined, { clock: new ManualClock() });
    await server.addUser('alice', 'alice-password');
  });
  after(() => server.close());

  test("an unknown user's failed login takes about as long as a known user's: both hash a password", async () => {
    const url = `${server.url}/api/projects/no-such-project`;
    const timed = async (user: string, from: string) => {
      const a = await requestFrom(url, { method: 'DELETE', auth: basicAuth(user, 'not-the-password'), from });
      assert.equal(a.status, 403, a.reason);
      return a.ms;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await timed('alice', `127.0.2.${i + 1}`));
      unknown.push(await timed(`ghost-${i}`, `127.0.2.${i + 1}`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    // Before: 1.3 ms against 45 ms. A hash each: about equal; the bound is loose on purpose.
    assert.ok(median(unknown) > median(known) / 3, `unknown ${median(unknown).toFixed(1)} ms, known ${median(known).toFixed(1)} ms`);
  });
});
