/** The download audit's inputs: the client address behind trusted proxies, `--since`, the settings. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSince } from '../../src/audit/fetched-query.js';
import { loadConfig } from '../../src/config/load.js';
import { clientAddressOf } from '../../src/http/client-address.js';

test('X-Forwarded-For names the client only when the peer is a trusted proxy, and only when it is an address', () => {
  const behind = clientAddressOf(['10.0.0.0/8', '::1', '192.0.2.5']);
  assert.equal(behind('10.2.3.4', '203.0.113.9, 10.2.3.4'), '203.0.113.9');
  assert.equal(behind('::ffff:10.2.3.4', '203.0.113.9'), '203.0.113.9');
  assert.equal(behind('::1', ['2001:db8::7']), '2001:db8::7');
  assert.equal(behind('192.0.2.5', ' 198.51.100.1 ,1.1.1.1'), '198.51.100.1');
  assert.equal(behind('192.0.2.6', '203.0.113.9'), '192.0.2.6', 'not a trusted peer');
  assert.equal(behind('10.2.3.4', 'evil<script>'), '10.2.3.4', 'not an address');
  assert.equal(behind('10.2.3.4', undefined), '10.2.3.4');
  assert.equal(clientAddressOf([])('::ffff:127.0.0.1', '203.0.113.9'), '127.0.0.1');
});

test('--since: a date is 00:00 UTC; a date-time is UTC unless it names its offset; anything else is refused', () => {
  assert.equal(parseSince('2026-03-01'), Date.UTC(2026, 2, 1));
  assert.equal(parseSince('2026-03-01T14:30'), Date.UTC(2026, 2, 1, 14, 30));
  assert.equal(parseSince('2026-03-01 14:30:05.250Z'), Date.UTC(2026, 2, 1, 14, 30, 5, 250));
  assert.equal(parseSince('2026-03-01T14:30+02:00'), Date.UTC(2026, 2, 1, 12, 30));
  for (const bad of ['2026-02-30', '2026-3-1', 'yesterday', '1709251200', '2026-03-01T25:00', '']) {
    assert.throws(() => parseSince(bad), /is not a date such as 2026-03-01/, bad);
  }
});

test('the audit is on by default, kept 90 days; trusted proxies must be addresses or CIDR blocks', () => {
  const defaults = loadConfig({ env: {}, overrides: { upstream: null } });
  assert.equal(defaults.audit, true);
  assert.equal(defaults.auditRetention, 90 * 86_400_000);
  assert.deepEqual(defaults.trustedProxies, []);
  const set = loadConfig({
    env: { LARDER_AUDIT: 'false', LARDER_AUDIT_RETENTION: '30d', LARDER_TRUSTED_PROXIES: '10.0.0.0/8, ::1' },
    overrides: { upstream: null },
  });
  assert.deepEqual([set.audit, set.auditRetention, set.trustedProxies], [false, 30 * 86_400_000, ['10.0.0.0/8', '::1']]);
  assert.throws(() => loadConfig({ env: { LARDER_TRUSTED_PROXIES: 'proxy.example' }, overrides: { upstream: null } }), /LARDER_TRUSTED_PROXIES/);
  assert.throws(() => loadConfig({ env: { LARDER_TRUSTED_PROXIES: '10.0.0.0/33' }, overrides: { upstream: null } }), /LARDER_TRUSTED_PROXIES/);
  assert.throws(() => loadConfig({ env: { LARDER_AUDIT_RETENTION: '10s' }, overrides: { upstream: null } }), /at least 1m/);
});
