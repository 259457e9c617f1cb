/** The configuration as logged (`describeConfig`): no password, token or secret, wherever it sits. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeConfig, loadConfig } from '../../src/config/load.js';

test('passwords, tokens and secrets are masked: in URLs of any scheme, in keys, in the list of upstreams', () => {
  const config = loadConfig({
    env: {
      LARDER_UPSTREAM: 'https://reader:up-pass-1@pypi.example/simple/',
      LARDER_DATABASE_URL: 'postgres://larder:db-pass-2@db.example:5432/larder',
      LARDER_SESSION_SECRET: 'session-secret-3-long-enough',
      LARDER_METRICS_TOKEN: 'metrics-token-4',
      LARDER_UPSTREAM_PASSWORD: 'up-pass-5',
      HTTPS_PROXY: 'http://proxy-user:proxy-pass-6@proxy.example:3128',
      LARDER_UPSTREAMS: JSON.stringify([{ name: 'corp', url: 'https://corp.example/simple/', username: 'ci', password: 'corp-pass-7' }]),
    },
  });
  const logged = JSON.stringify(describeConfig(config));
  for (const secret of ['up-pass-1', 'db-pass-2', 'session-secret-3', 'metrics-token-4', 'up-pass-5', 'proxy-pass-6', 'corp-pass-7']) {
    assert.ok(!logged.includes(secret), `${secret} is not logged: ${logged}`);
  }
  const described = describeConfig(config) as Record<string, unknown>;
  assert.equal(described.databaseUrl, 'postgres://***@db.example:5432/larder', 'where the database is stays visible');
  assert.equal((described.upstreams as { url: string }[])[0]!.url, 'https://corp.example/simple/');
  assert.equal(described.port, config.port);
});

test('the one upstream of LARDER_UPSTREAM is logged without its credentials', () => {
  const config = loadConfig({ env: { LARDER_UPSTREAM: 'https://reader:up-pass-1@pypi.example/simple/', LARDER_UPSTREAM_PASSWORD: 'up-pass-5' } });
  const logged = JSON.stringify(describeConfig(config));
  for (const secret of ['up-pass-1', 'up-pass-5']) assert.ok(!logged.includes(secret), `${secret} is not logged: ${logged}`);
  const [upstream] = (describeConfig(config) as { upstreams: { url: string; password: string }[] }).upstreams;
  assert.deepEqual([upstream!.url, upstream!.password], ['https://***@pypi.example/simple/', '***']);
});

test('settings about tokens that are not secrets are logged as they are', () => {
  const described = describeConfig(loadConfig({ env: { LARDER_OIDC_TOKEN_TTL: '20m', LARDER_METRICS_TOKEN: 'metrics-token-4' } })) as Record<string, unknown>;
  assert.notEqual(described.oidcTokenTtl, '***');
  assert.equal(described.metricsToken, '***');
});
