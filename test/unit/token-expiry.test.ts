/** parseExpiry: the expiry of a new API token from a duration, a date, a time or `never`. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseExpiry } from '../../src/auth/token-expiry.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const at = (text: string) => {
  const choice = parseExpiry(text, NOW);
  assert.ok(choice.ok, `${text}: ${choice.ok ? '' : choice.problem}`);
  return choice.expiresAt?.toISOString() ?? null;
};
const problem = (text: string) => {
  const choice = parseExpiry(text, NOW);
  assert.ok(!choice.ok, `${text} should be refused`);
  return choice.problem;
};

describe('parseExpiry', () => {
  test('durations count from now; never is no expiry', () => {
    assert.equal(at('12h'), '2026-11-26T00:00:00.000Z');
    assert.equal(at('30d'), '2026-12-25T12:00:00.000Z');
    assert.equal(at(' 2W '), '2026-12-09T12:00:00.000Z');
    assert.equal(at('1y'), '2027-11-25T12:00:00.000Z');
    assert.equal(at('Never'), null);
  });

  test('a date is that day at 00:00 UTC; times without a zone are UTC, offsets are honoured', () => {
    assert.equal(at('2027-01-31'), '2027-01-31T00:00:00.000Z');
    assert.equal(at('2027-01-31T08:30'), '2027-01-31T08:30:00.000Z');
    assert.equal(at('2027-01-31 08:30:15Z'), '2027-01-31T08:30:15.000Z');
    assert.equal(at('2027-01-31T08:30+02:00'), '2027-01-31T06:30:00.000Z');
  });

  test('the past, now, impossible dates, nonsense and more than 100 years are refused', () => {
    assert.match(problem('2026-11-25T12:00Z'), /not in the future/);
    assert.match(problem('0d'), /not in the future/);
    assert.match(problem('2027-02-29'), /'2027-02-29' is not a valid date/);
    assert.match(problem('2027-13-01'), /not a valid date/);
    assert.match(problem('soon'), /'soon' is not a duration such as 30d/);
    assert.match(problem('5 months'), /is not a duration/);
    assert.match(problem('101y'), /more than 100 years ahead/);
    assert.match(problem('x'.repeat(5000)), /^'x{40}' is not/);
  });
});
