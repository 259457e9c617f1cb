/** Trusted publishing's settings: issuers are https (http only on loopback), the audience defaults to larder, minted tokens last 15 minutes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';

const load = (env: Record<string, string>) => loadConfig({ env: { LARDER_UPSTREAM: 'none', ...env } });

test('defaults, lists and refusals', () => {
  const defaults = load({});
  assert.deepEqual(defaults.oidcIssuers, []);
  assert.equal(defaults.oidcAudience, 'larder');
  assert.equal(defaults.oidcTokenTtl, 15 * 60_000);
  const set = load({ LARDER_OIDC_ISSUERS: 'https://token.actions.githubusercontent.com, http://127.0.0.1:8080', LARDER_OIDC_TOKEN_TTL: '5m' });
  assert.deepEqual(set.oidcIssuers, ['https://token.actions.githubusercontent.com', 'http://127.0.0.1:8080']);
  assert.equal(set.oidcTokenTtl, 5 * 60_000);
  assert.throws(() => load({ LARDER_OIDC_ISSUERS: 'http://gitlab.example' }), /LARDER_OIDC_ISSUERS/);
  assert.throws(() => load({ LARDER_OIDC_ISSUERS: 'not a url' }), /LARDER_OIDC_ISSUERS/);
  assert.throws(() => load({ LARDER_OIDC_TOKEN_TTL: '2d' }), /LARDER_OIDC_TOKEN_TTL/);
});
