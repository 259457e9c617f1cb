/**
 * The headers of a first (uncached) download from an upstream whose pages give no sizes (PEP 503 HTML):
 * `Content-Length` from the upstream's response, the same headers for HEAD, and a Range request answered
 * with the whole file (200) until the file is cached, then 206 (docs/upstream.md, "Downloads").
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { eventually } from '../helpers/eventually.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { rawGet } from '../helpers/raw-get.js';

describe('first downloads from an upstream that gives no sizes', () => {
  let dir: string;
  let up: FakeUpstream;
  const dists: BuiltDist[] = [];
  const larders: TestLarder[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-cold-headers-'));
    up = await startFakeUpstream({ htmlOnly: true, jsonApi: false });
    for (const name of ['sized-get', 'sized-head', 'sized-range']) {
      const dist = await buildWheel(join(dir, name), { name, version: '1.0', dataFile: { bytes: 300_000 } });
      dists.push(dist);
      up.addProject(name, [dist]);
    }
  });

  after(async () => {
    for (const l of larders) await l.stop();
    await up?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const larder = async () => {
    const l = await startLarder({ upstream: up.url, upstreamRetries: 0 }, join(dir, `data-${larders.length}`));
    larders.push(l);
    return l;
  };
  const url = (l: TestLarder, dist: BuiltDist) => `${l.url}/packages/${dist.name}/${dist.filename}`;

  test('GET: Content-Length from the upstream response on the first download', async () => {
    const l = await larder();
    const dist = dists[0]!;
    await rawGet(`${l.url}/simple/${dist.name}/`, { headers: { Accept: 'text/html' } });
    const got = await rawGet(url(l, dist));
    assert.equal(got.status, 200);
    assert.equal(got.headers['x-larder-cache'], 'miss');
    assert.equal(got.headers['content-length'], String(dist.size));
    assert.equal(got.headers['transfer-encoding'], undefined);
    assert.equal(sha256Hex(got.body), dist.sha256);
  });

  test('HEAD of an uncached file answers the same headers as GET, Content-Length included', async () => {
    const l = await larder();
    const dist = dists[1]!;
    await rawGet(`${l.url}/simple/${dist.name}/`, { headers: { Accept: 'text/html' } });
    const head = await rawGet(url(l, dist), { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], String(dist.size));
    assert.equal(head.headers['accept-ranges'], 'bytes');
    assert.equal(head.body.length, 0);
    const got = await rawGet(url(l, dist));
    for (const name of ['content-length', 'content-type', 'accept-ranges', 'cache-control']) {
      assert.equal(head.headers[name], got.headers[name], name);
    }
  });

  test('Range on an uncached file: 200 with the whole file; once cached, 206 with the range', async () => {
    const l = await larder();
    const dist = dists[2]!;
    await rawGet(`${l.url}/simple/${dist.name}/`, { headers: { Accept: 'text/html' } });
    const cold = await rawGet(url(l, dist), { headers: { Range: 'bytes=100-199' } });
    assert.equal(cold.status, 200);
    assert.equal(cold.headers['content-range'], undefined);
    assert.equal(cold.headers['content-length'], String(dist.size));
    assert.equal(sha256Hex(cold.body), dist.sha256);
    await eventually(async () => (await rawGet(url(l, dist), { method: 'HEAD' })).headers['x-larder-cache'] === 'hit', 'the file is cached');
    const warm = await rawGet(url(l, dist), { headers: { Range: 'bytes=100-199' } });
    assert.equal(warm.status, 206);
    assert.equal(warm.headers['content-range'], `bytes 100-199/${dist.size}`);
    assert.ok(warm.body.equals(cold.body.subarray(100, 200)));
  });
});
