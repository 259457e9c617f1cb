/** LoginLimiter: the sliding one-minute window per address, per (user name, address) and for guesses spread over addresses; Retry-After; bounded memory. */
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
  test('an address may fail three times the limit over all names; then it waits until the oldest is a minute old', () => {
    const clock = new ManualClock();
    const limiter = new LoginLimiter(3, clock);
    assert.equal(limiter.addressLimit, 9);
    for (let i = 0; i < 9; i++) {
      limiter.check('10.0.0.1', `user${i}`);
      limiter.fail('10.0.0.1', `user${i}`);
      clock.advance(i < 2 ? 10_000 : 0);
    }
    const err = refusal(() => limiter.check('10.0.0.1', 'someone-else'));
    assert.equal(err.status, 429);
    // Failures at 0 s, 10 s, then seven at 20 s; now is 20 s: the one at 0 s leaves the window at 60 s.
    assert.equal(err.headers['Retry-After'], '40');
    assert.equal(err.message, 'Too many failed logins from this address; try again in 40 s.');
    limiter.check('10.0.0.2', 'someone-else');
    clock.advance(39_999);
    assert.equal(refusal(() => limiter.check('10.0.0.1', null)).headers['Retry-After'], '1');
    clock.advance(1);
    limiter.check('10.0.0.1', null);
    // Sliding: one more failure now makes nine within the last minute again (10 s, 7 × 20 s, 60 s).
    limiter.fail('10.0.0.1', null);
    assert.equal(refusal(() => limiter.check('10.0.0.1', null)).headers['Retry-After'], '10');
  });

  test('limit failures for one name from one address refuse that name there, not elsewhere, not other names', () => {
    const clock = new ManualClock();
    const limiter = new LoginLimiter(3, clock);
    for (let i = 0; i < 3; i++) limiter.fail('10.0.0.1', 'alice');
    const err = refusal(() => limiter.check('10.0.0.1', 'alice'));
    assert.equal(err.message, 'Too many failed logins for this user name from this address; try again in 60 s.');
    limiter.check('10.0.0.2', 'alice');
    limiter.check('10.0.0.1', 'bob');
    limiter.check('10.0.0.1', null);
    clock.advance(60_000);
    limiter.check('10.0.0.1', 'alice');
  });

  test('a guess spread over many addresses: each that failed for the name waits, one with no failure is let in', () => {
    const clock = new ManualClock();
    const limiter = new LoginLimiter(3, clock);
    limiter.fail('10.0.0.1', 'alice');
    clock.advance(20_000);
    limiter.fail('10.0.0.2', 'alice');
    limiter.fail('10.0.0.3', 'alice');
    clock.advance(10_000);
    limiter.fail('10.0.0.4', 'alice');
    // Four failures for alice within the minute (0 s, 20 s, 20 s, 30 s; now is 30 s): an address that failed
    // for her waits until its own failure is a minute old, or until she is below three failures (at 80 s).
    const err = refusal(() => limiter.check('10.0.0.2', 'alice'));
    assert.equal(err.message, 'Too many failed logins for this user name, one of them from this address; try again in 50 s.');
    assert.equal(refusal(() => limiter.check('10.0.0.1', 'alice')).headers['Retry-After'], '30');
    // The real alice, from an address that has not failed for her, is not refused; nor are other names.
    limiter.check('10.0.0.9', 'alice');
    limiter.forgive(limiter.begin('10.0.0.9', 'alice'));
    limiter.check('10.0.0.2', 'bob');
    // Her check under way (begun, then forgiven) pushed none of the four failures out.
    assert.equal(refusal(() => limiter.check('10.0.0.1', 'alice')).headers['Retry-After'], '30');
    clock.advance(30_000);
    // 10.0.0.1's failure is a minute old: it may try again, while alice still has three failures.
    limiter.check('10.0.0.1', 'alice');
    assert.equal(refusal(() => limiter.check('10.0.0.2', 'alice')).headers['Retry-After'], '20');
    clock.advance(20_000);
    limiter.check('10.0.0.2', 'alice');
    limiter.check('10.0.0.4', 'alice');
  });

  test('the right password clears that name-and-address pair, not the address count', () => {
    const limiter = new LoginLimiter(2, new ManualClock());
    limiter.fail('10.0.0.1', 'alice');
    limiter.fail('10.0.0.1', 'alice');
    assert.throws(() => limiter.check('10.0.0.1', 'alice'), LarderError);
    limiter.succeeded('10.0.0.1', 'alice');
    limiter.check('10.0.0.1', 'alice');
    // The address still holds its two failures (of six allowed): four more, for anyone, and it waits.
    for (const name of ['bob', 'carol', 'dave', 'erin']) limiter.fail('10.0.0.1', name);
    assert.equal(refusal(() => limiter.check('10.0.0.1', 'alice')).message, 'Too many failed logins from this address; try again in 60 s.');
  });

  test("the right password takes that pair's failures back from the name's count too", () => {
    const limiter = new LoginLimiter(2, new ManualClock());
    limiter.fail('10.0.0.1', 'alice');
    limiter.succeeded('10.0.0.1', 'alice');
    limiter.fail('10.0.0.2', 'alice');
    // Two failures for alice would make 10.0.0.2 wait (a spread-out guess); her own typo at 10.0.0.1 no longer counts.
    limiter.check('10.0.0.2', 'alice');
    limiter.fail('10.0.0.3', 'alice');
    assert.throws(() => limiter.check('10.0.0.2', 'alice'), LarderError);
  });

  test('forgive takes back a failure begun while a check ran', () => {
    const limiter = new LoginLimiter(2, new ManualClock());
    const first = limiter.begin('10.0.0.1', 'alice');
    const second = limiter.begin('10.0.0.1', 'alice');
    assert.throws(() => limiter.check('10.0.0.1', 'alice'), LarderError);
    limiter.forgive(second);
    limiter.check('10.0.0.1', 'alice');
    limiter.forgive(first);
    limiter.fail('10.0.0.1', 'alice');
    limiter.check('10.0.0.1', 'alice');
  });

  test('memory is bounded: a flood of new addresses and names pushes out the oldest entries', () => {
    const limiter = new LoginLimiter(1, new ManualClock(), { maxWeight: 1000 });
    for (let i = 0; i < 3; i++) limiter.fail('10.0.0.1', 'alice');
    assert.throws(() => limiter.check('10.0.0.1', null), LarderError);
    for (let i = 0; i < 1000; i++) limiter.fail(`10.1.${i >> 8}.${i & 255}`, `name-${i}`);
    limiter.check('10.0.0.1', 'alice');
  });

  test('user names longer than any valid one are kept as a digest, still counted', () => {
    const limiter = new LoginLimiter(1, new ManualClock());
    const long = 'x'.repeat(10_000);
    limiter.fail('10.0.0.1', long);
    assert.throws(() => limiter.check('10.0.0.1', long), LarderError);
    limiter.check('10.0.0.1', `${long}y`);
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
    limiter.fail('2001:db8:1:2::10', 'alice');
    assert.throws(() => limiter.check('2001:db8:1:2::20', 'alice'), LarderError);
    limiter.check('2001:db8:1:3::10', null);
  });
});
