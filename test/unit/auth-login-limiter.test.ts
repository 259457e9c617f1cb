/** LoginLimiter: the sliding one-minute window per address and per user name, Retry-After, bounded memory. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addressKey, LoginLimiter } from '../../src/auth/login-limiter.js';
import { LarderError } from '../../src/base/errors.js';
import { ManualClock } from '../helpers/manual-clock.js';

function refusal(fn: () => void): LarderError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof LarderError);
    return err;
  }
  assert.fail('expected a refusal');
}

describe('login limiter', () => {
  test('the limit-th failure within a minute locks the address until the oldest is a minute old', () => {
    const clock = new ManualClock();
    const limiter = new LoginLimiter(3, clock);
    for (let i = 0; i < 3; i++) {
      limiter.check('10.0.0.1', `user${i}`);
      limiter.fail('10.0.0.1', `user${i}`);
      clock.advance(10_000);
    }
    const err = refusal(() => limiter.check('10.0.0.1', 'someone-else'));
    assert.equal(err.status, 429);
    // Failures at 0 s, 10 s, 20 s; now is 30 s: the one at 0 s leaves the window at 60 s.
    assert.equal(err.headers['Retry-After'], '30');
    assert.equal(err.message, 'Too many failed logins from this address; try again in 30 s.');
    limiter.check('10.0.0.2', 'someone-else');
    clock.advance(29_999);
    assert.equal(refusal(() => limiter.check('10.0.0.1', null)).headers['Retry-After'], '1');
    clock.advance(1);
    limiter.check('10.0.0.1', null);
    // Sliding: one more failure now makes three within the last minute again (10 s, 20 s, 60 s).
    limiter.fail('10.0.0.1', null);
    assert.equal(refusal(() => limiter.check('10.0.0.1', null)).headers['Retry-After'], '10');
  });

  test('a user name is locked whatever the address; the message says which', () => {
    const clock = new ManualClock();
    const limiter = new LoginLimiter(2, clock);
    limiter.fail('10.0.0.1', 'alice');
    limiter.fail('10.0.0.2', 'alice');
    const err = refusal(() => limiter.check('10.0.0.3', 'alice'));
    assert.equal(err.message, 'Too many failed logins for this user name; try again in 60 s.');
    limiter.check('10.0.0.3', 'bob');
    limiter.check('10.0.0.3', null);
  });

  test('forgive takes back a failure counted while a check ran', () => {
    const limiter = new LoginLimiter(2, new ManualClock());
    const first = limiter.fail('10.0.0.1', 'alice');
    const second = limiter.fail('10.0.0.1', 'alice');
    assert.throws(() => limiter.check('10.0.0.1', 'alice'), LarderError);
    limiter.forgive(second);
    limiter.check('10.0.0.1', 'alice');
    limiter.forgive(first);
    limiter.fail('10.0.0.1', 'alice');
    limiter.check('10.0.0.1', 'alice');
  });

  test('memory is bounded: a flood of new addresses and names pushes out the oldest entries', () => {
    const limiter = new LoginLimiter(1, new ManualClock(), { maxWeight: 1000 });
    limiter.fail('10.0.0.1', 'alice');
    assert.throws(() => limiter.check('10.0.0.1', null), LarderError);
    assert.throws(() => limiter.check('10.9.9.9', 'alice'), LarderError);
    for (let i = 0; i < 1000; i++) limiter.fail(`10.1.${i >> 8}.${i & 255}`, `name-${i}`);
    limiter.check('10.0.0.1', 'alice');
  });

  test('user names longer than any valid one are kept as a digest, still counted', () => {
    const limiter = new LoginLimiter(1, new ManualClock());
    const long = 'x'.repeat(10_000);
    limiter.fail('10.0.0.1', long);
    assert.throws(() => limiter.check('10.0.0.2', long), LarderError);
    limiter.check('10.0.0.2', `${long}y`);
  });

  test('IPv6 clients count per /64; IPv4 and IPv4-mapped per address', () => {
    assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:0db8:0001:0002::/64');
    assert.equal(addressKey('2001:DB8:1:2:ffff:ffff:ffff:fffe'), '2001:0db8:0001:0002::/64');
    assert.equal(addressKey('2001:db8::1'), '2001:0db8:0000:0000::/64');
    assert.equal(addressKey('::1'), '0000:0000:0000:0000::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0000:0000:0000::/64');
    assert.equal(addressKey('::ffff:192.0.2.1'), '::ffff:192.0.2.1');
    assert.equal(addressKey('192.0.2.1'), '192.0.2.1');
    const limiter = new LoginLimiter(1, new ManualClock());
    limiter.fail('2001:db8:1:2::10', null);
    assert.throws(() => limiter.check('2001:db8:1:2::20', null), LarderError);
    limiter.check('2001:db8:1:3::10', null);
  });
});
