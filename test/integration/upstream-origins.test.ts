/**
 * Where files may come from (docs/upstream.md, "Where files may come from"): only the upstream's own
 * origin, LARDER_FILE_HOSTS, and files.pythonhosted.org for pypi.org; every redirect checked by the same
 * rule; never `file:`. A refused URL is a 502 naming the host and the setting, and the host sees nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Settings } from '../../src/config/schema.js';
import { parseProjectPage } from '../../src/upstream/parse-project-page.js';
import { OriginPolicy } from '../../src/upstream/origin-policy.js';
import type { BuiltDist } from '../fixtures/dists.js';
import type { FakeUpstream } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { startLoggingServer, type LoggingServer } from '../fixtures/upstream/logging-server.js';
import { startUpstreamBench, type UpstreamBench } from '../helpers/upstream-bench.js';
import { PIP_ACCEPT, rawGet } from '../helpers/raw-get.js';

describe('where files may come from', () => {
  let bench: UpstreamBench;
  let up: FakeUpstream;
  let other: LoggingServer;
  let wheel: BuiltDist;
  const larder = (overrides: Partial<Settings> = {}) => bench.larder(overrides);

  before(async () => {
    bench = await startUpstreamBench('larder-origins-', { upstreamRetries: 0 });
    up = bench.up;
    wheel = await bench.offerWheel({ name: 'elsewhere', version: '1.0' });
    other = await startLoggingServer({ files: [wheel] });
  });

  after(async () => {
    await bench?.close();
    await other?.close();
  });

  test('a file listed on another origin: 502 naming the host and LARDER_FILE_HOSTS, and that host sees no request', async () => {
    up.configure({ fileOrigin: other.origin });
    try {
      const l = await larder();
      other.clearLog();
      const page = await rawGet(`${l.url}/simple/elsewhere/`, { headers: { Accept: PIP_ACCEPT } });
      assert.equal(page.status, 200, 'the page itself is served, with larder links');
      const got = await rawGet(`${l.url}/packages/elsewhere/${wheel.filename}`);
      assert.equal(got.status, 502);
      const message = got.body.toString();
      assert.ok(message.includes(other.origin), message);
      assert.match(message, /LARDER_FILE_HOSTS/);
      assert.equal(other.connections, 0, 'not even a connection');
      assert.equal(other.requests.length, 0);
    } finally {
      up.configure({ fileOrigin: null });
    }
  });

  test('the same file with its origin in LARDER_FILE_HOSTS is fetched from there and verified', async () => {
    up.configure({ fileOrigin: other.origin });
    try {
      const l = await larder({ fileHosts: [other.origin] });
      other.clearLog();
      const got = await rawGet(`${l.url}/packages/elsewhere/${wheel.filename}`);
      assert.equal(got.status, 200);
      assert.equal(sha256Hex(got.body), wheel.sha256);
      assert.equal(other.requests.length, 1);
      assert.equal(other.requests[0]!.headers.authorization, undefined, 'upstream credentials stay with the upstream');
    } finally {
      up.configure({ fileOrigin: null });
    }
  });

  test('a file redirected to another origin: 502 naming the redirect, the other origin sees nothing; allowed, it is followed', async () => {
    const l = await larder();
    await up.setFault({ kind: 'redirect', to: other.origin, status: 302, pathPrefix: '/files/' });
    try {
      other.clearLog();
      const refused = await rawGet(`${l.url}/packages/elsewhere/${wheel.filename}`);
      assert.equal(refused.status, 502);
      assert.match(refused.body.toString(), /redirected to http:\/\/127\.0\.0\.1:\d+\/files\/.*LARDER_FILE_HOSTS/s);
      assert.equal(other.connections, 0);
      const allowed = await larder({ fileHosts: [other.origin] });
      const got = await rawGet(`${allowed.url}/packages/elsewhere/${wheel.filename}`);
      assert.equal(got.status, 200);
      assert.equal(sha256Hex(got.body), wheel.sha256);
      assert.equal(other.requests.length, 1);
    } finally {
      await up.setFault(null);
    }
  });

  test('a project page redirected to another origin is not followed: 502, nothing asked there', async () => {
    const l = await larder();
    await up.setFault({ kind: 'redirect', to: other.origin, status: 301, pathPrefix: '/simple/elsewhere/' });
    try {
      other.clearLog();
      const got = await rawGet(`${l.url}/simple/elsewhere/`, { headers: { Accept: PIP_ACCEPT } });
      assert.equal(got.status, 502);
      assert.match(got.body.toString(), /LARDER_FILE_HOSTS/);
      assert.equal(other.connections, 0);
    } finally {
      await up.setFault(null);
    }
  });

  test('file: links on a page are dropped, never offered nor fetched', () => {
    const html =
      '<html><body><a href="file:///etc/passwd#sha256=aa">elsewhere-1.0-py3-none-any.whl</a><a href="https://x.example/elsewhere-1.0.tar.gz">elsewhere-1.0.tar.gz</a></body></html>';
    const page = parseProjectPage(html, 'text/html', { pageUrl: 'https://x.example/simple/elsewhere/', projectName: 'elsewhere' });
    assert.deepEqual(
      page.files.map((f) => f.filename),
      ['elsewhere-1.0.tar.gz'],
    );
  });

  test('the rule: the upstream origin and its JSON API, the listed origins, and files.pythonhosted.org only for pypi.org', () => {
    const pypi = new OriginPolicy('https://pypi.org/simple/', 'https://pypi.org/pypi/', []);
    assert.equal(pypi.refusal(new URL('https://files.pythonhosted.org/packages/x.whl')), null);
    assert.match(pypi.refusal(new URL('http://files.pythonhosted.org/packages/x.whl')) ?? '', /not the upstream's origin/);
    assert.match(pypi.refusal(new URL('file:///etc/passwd')) ?? '', /file: URLs are never fetched/);
    const mirror = new OriginPolicy('http://mirror.example:8080/simple/', 'http://api.example/pypi/', ['https://cdn.example']);
    assert.equal(mirror.refusal(new URL('http://mirror.example:8080/files/x.whl')), null);
    assert.equal(mirror.refusal(new URL('http://api.example/x.whl')), null);
    assert.equal(mirror.refusal(new URL('https://cdn.example/x.whl')), null);
    assert.notEqual(mirror.refusal(new URL('http://mirror.example:8081/x.whl')), null, 'another port is another origin');
    assert.notEqual(mirror.refusal(new URL('https://files.pythonhosted.org/x.whl')), null);
    assert.notEqual(mirror.refusal(new URL('http://127.0.0.1:8080/x.whl')), null);
  });
});
