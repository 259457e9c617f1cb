/** The one-upstream settings become `upstreams[0]` at load time; each `upstreams` entry carries its own per-upstream settings. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';

const LIST = JSON.stringify([
  { name: 'corp', url: 'https://corp.example/simple/', username: 'ci', password: 'pw', retries: 5, deadline: '2s', jsonApi: 'none' },
  { name: 'pypi', url: 'https://pypi.org/simple/' },
]);

describe('upstream settings', () => {
  test('LARDER_UPSTREAM and its settings are the one entry of upstreams, named after its host', () => {
    const config = loadConfig({
      env: {
        LARDER_UPSTREAM: 'https://mirror.example/simple',
        LARDER_UPSTREAM_USERNAME: 'reader',
        LARDER_UPSTREAM_PASSWORD: 'secret',
        LARDER_UPSTREAM_CONNECT_TIMEOUT: '1s',
        LARDER_UPSTREAM_HEADERS_TIMEOUT: '2s',
        LARDER_UPSTREAM_BODY_TIMEOUT: '3s',
        LARDER_UPSTREAM_RETRIES: '0',
        LARDER_UPSTREAM_DEADLINE: '4s',
      },
      flags: { upstreamJsonApi: 'https://api.example/pypi' },
    });
    assert.deepEqual(config.upstreams, [
      {
        name: 'mirror.example',
        url: 'https://mirror.example/simple/',
        projects: null,
        jsonApi: 'https://api.example/pypi/',
        username: 'reader',
        password: 'secret',
        connectTimeout: 1000,
        headersTimeout: 2000,
        bodyTimeout: 3000,
        retries: 0,
        deadline: 4000,
        cacheNamespace: null,
      },
    ]);
    assert.deepEqual(
      Object.keys(config).filter((key) => key.startsWith('upstream') && key !== 'upstreams'),
      [],
      'the code reads the upstream settings from the entries only',
    );
  });

  test('by default the one upstream is pypi.org with the JSON API derived; none means no upstream', () => {
    const [pypi, ...others] = loadConfig({ env: {} }).upstreams;
    assert.deepEqual(others, []);
    assert.deepEqual(
      [pypi!.name, pypi!.url, pypi!.jsonApi, pypi!.retries, pypi!.deadline],
      ['pypi.org', 'https://pypi.org/simple/', 'https://pypi.org/pypi/', 2, 10_000],
    );
    assert.deepEqual(loadConfig({ env: { LARDER_UPSTREAM: 'none' } }).upstreams, []);
    assert.deepEqual(loadConfig({ env: {}, overrides: { upstream: null } }).upstreams, []);
  });

  test('a listed upstream takes the time limits set for every upstream, but its own credentials and JSON API', () => {
    const config = loadConfig({
      env: {
        LARDER_UPSTREAMS: LIST,
        LARDER_UPSTREAM_RETRIES: '1',
        LARDER_UPSTREAM_BODY_TIMEOUT: '9s',
        LARDER_UPSTREAM_USERNAME: 'other',
        LARDER_UPSTREAM_JSON_API: 'none',
      },
    });
    const [corp, pypi] = config.upstreams;
    assert.deepEqual(
      [corp!.retries, corp!.deadline, corp!.bodyTimeout, corp!.jsonApi, corp!.username, corp!.password, corp!.cacheNamespace],
      [5, 2000, 9000, null, 'ci', 'pw', null],
    );
    assert.deepEqual(
      [pypi!.retries, pypi!.deadline, pypi!.bodyTimeout, pypi!.jsonApi, pypi!.username, pypi!.password, pypi!.cacheNamespace],
      [1, 10_000, 9000, 'https://pypi.org/pypi/', null, null, 'pypi'],
    );
  });

  test("an entry's settings are parsed as the settings are, and mistakes name the entry", () => {
    const list = (entry: Record<string, unknown>) => ({ LARDER_UPSTREAMS: JSON.stringify([{ name: 'corp', url: 'https://corp.example/simple/', ...entry }]) });
    assert.throws(() => loadConfig({ env: list({ deadline: 'soon' }) }), /LARDER_UPSTREAMS\[corp\]\.deadline="soon"; expected a duration/);
    assert.throws(() => loadConfig({ env: list({ retries: 99 }) }), /LARDER_UPSTREAMS\[corp\]\.retries=99; expected an integer from 0 to 10/);
    assert.throws(() => loadConfig({ env: list({ timeout: '1s' }) }), /unknown field timeout/);
  });
});
