/** Operations: metrics move with traffic, SIGTERM lets a download finish, the cache bound evicts only cached files. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TOTALS_REUSE_MS } from '../../src/metrics/metrics.js';
import { FileBlobStore } from '../../src/store/fs/file-blob-store.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { runCommand } from '../fixtures/clients.js';
import { startChildServer } from '../helpers/child-server.js';
import { eventually } from '../helpers/eventually.js';
import { basicAuth, startLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { uploadForm } from '../helpers/upload-form.js';

function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return 0;
}

const sha256 = (bytes: ArrayBuffer | Uint8Array) => createHash('sha256').update(new Uint8Array(bytes)).digest('hex');

describe('operations', () => {
  let dir: string;
  let upstream: FakeUpstream;
  const wheels: BuiltDist[] = [];
  let big: BuiltDist;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-ops-'));
    upstream = await startFakeUpstream();
    for (let i = 0; i < 5; i++) wheels.push(await buildWheel(dir, { name: `cached${i}`, version: '1.0', dataFile: { bytes: 1_000_000, seed: `c${i}` } }));
    for (const [i, w] of wheels.entries()) upstream.addProject(`cached${i}`, [w]);
    big = await buildWheel(dir, { name: 'bigone', version: '1.0', dataFile: { bytes: 30_000_000 } });
    upstream.addProject('bigone', [big]);
  });
  after(async () => {
    await upstream.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('metrics move as requests are served, and the token protects them', async () => {
    const clock = new ManualClock(Date.now());
    const server = await startLarder({ upstream: upstream.url, metricsToken: 'sekrit' }, undefined, { clock });
    try {
      const scrape = async () => {
        const res = await fetch(`${server.url}/metrics`, { headers: { Authorization: 'Bearer sekrit' } });
        assert.equal(res.status, 200);
        return res.text();
      };
      assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
      assert.equal((await fetch(`${server.url}/metrics`, { headers: { Authorization: 'Bearer wrong' } })).status, 401);
      const before = await scrape();
      await (await fetch(`${server.url}/simple/cached0/`)).text();
      await (await fetch(`${server.url}/simple/cached0/`)).text();
      const file = `${server.url}/packages/cached0/${wheels[0]!.filename}`;
      assert.equal(sha256(await (await fetch(file)).arrayBuffer()), wheels[0]!.sha256);
      assert.equal(sha256(await (await fetch(file)).arrayBuffer()), wheels[0]!.sha256);
      await server.addUser('alice', 'alice-password');
      const own = await buildWheel(join(dir, 'own'), { name: 'private-thing', version: '1.0' });
      const up = await fetch(`${server.url}/legacy/`, {
        method: 'POST',
        body: await uploadForm(own),
        headers: { Authorization: basicAuth('alice', 'alice-password') },
      });
      assert.equal(up.status, 200);
      clock.advance(TOTALS_REUSE_MS + 1); // the store totals are summed afresh
      const now = await scrape();
      const delta = (name: string, labels: Record<string, string> = {}) => metricValue(now, name, labels) - metricValue(before, name, labels);
      // One count per proxied request, in the state its X-Larder-Cache reports: the upload's lookup of the
      // new private name upstream, and the page lookups behind file requests, are not requests of their own.
      assert.equal(delta('larder_cache_results_total', { kind: 'page', state: 'miss' }), 1);
      assert.equal(delta('larder_cache_results_total', { kind: 'page', state: 'hit' }), 1);
      assert.equal(delta('larder_cache_results_total', { kind: 'file', state: 'miss' }), 1);
      assert.equal(delta('larder_cache_results_total', { kind: 'file', state: 'hit' }), 1);
      assert.equal(delta('larder_upstream_fetched_bytes_total'), wheels[0]!.size);
      assert.equal(delta('larder_cache_served_bytes_total'), wheels[0]!.size);
      assert.ok(delta('larder_upstream_requests_total') >= 2);
      assert.equal(delta('larder_uploads_total', { outcome: 'created' }), 1);
      assert.ok(delta('larder_http_requests_total', { route: '/simple/:project/', method: 'GET', status: '200' }) >= 2);
      assert.equal(metricValue(now, 'larder_blob_store_files', { kind: 'cached' }), 1);
      assert.equal(metricValue(now, 'larder_blob_store_bytes', { kind: 'cached' }), wheels[0]!.size);
      assert.equal(metricValue(now, 'larder_blob_store_files', { kind: 'private' }), 1);
      assert.match(now, /larder_http_request_duration_seconds_bucket/);
    } finally {
      await server.close();
    }
  });

  test('SIGTERM (even twice, and a SIGHUP) during a large first download lets it finish, then larder exits 0', async () => {
    const data = await mkdtemp(join(tmpdir(), 'larder-term-'));
    await upstream.setFault({ kind: 'slow', bytesPerSecond: 15_000_000, pathPrefix: '/files/' });
    const server = await startChildServer(['--data', data, '--upstream', upstream.url]);
    try {
      const res = await fetch(`${server.url}/packages/bigone/${big.filename}`);
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      const chunks: Uint8Array[] = [];
      const first = await reader.read();
      assert.ok(!first.done, 'the download is under way');
      chunks.push(first.value);
      server.child.kill('SIGTERM');
      // The same signal again, as a parent that passes it on (npm, src/launch/) delivers it: it must not cut the shutdown short.
      await eventually(() => /SIGTERM received/.test(server.output()), 'larder is shutting down');
      server.child.kill('SIGTERM');
      // The terminal closing (a hangup) during the shutdown is not a reload of the policy.
      server.child.kill('SIGHUP');
      for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
      assert.equal(sha256(Buffer.concat(chunks)), big.sha256, 'the client got every byte');
      assert.equal((await server.exited).code, 0, server.output());
      assert.ok(existsSync(new FileBlobStore(data).pathFor(big.sha256)), 'the verified download was kept');
      assert.match(server.output(), /SIGTERM/);
      assert.doesNotMatch(server.output(), /SIGHUP received/);
    } finally {
      await upstream.setFault(null);
      server.child.kill('SIGKILL');
      await rm(data, { recursive: true, force: true });
    }
  });

  test('LARDER_CACHE_MAX_SIZE evicts least recently used cached files and never private ones', async () => {
    const server = await startLarder({ upstream: upstream.url, cacheMaxSize: 3_500_000 });
    try {
      await server.addUser('alice', 'alice-password');
      const own = await buildWheel(join(dir, 'own2'), { name: 'private-big', version: '1.0', dataFile: { bytes: 2_000_000, seed: 'p' } });
      const up = await fetch(`${server.url}/legacy/`, {
        method: 'POST',
        body: await uploadForm(own),
        headers: { Authorization: basicAuth('alice', 'alice-password') },
      });
      assert.equal(up.status, 200);
      upstream.clearLog();
      const blobs = new FileBlobStore(server.data);
      for (const [i, w] of wheels.entries()) {
        const res = await fetch(`${server.url}/packages/cached${i}/${w.filename}`);
        assert.equal(sha256(await res.arrayBuffer()), w.sha256);
      }
      const present = wheels.filter((w) => existsSync(blobs.pathFor(w.sha256)));
      const cachedBytes = present.reduce((sum, w) => sum + w.size, 0);
      assert.ok(cachedBytes <= 3_500_000, `cached ${cachedBytes} bytes`);
      assert.ok(present.length >= 2 && present.length < wheels.length, `${present.length} cached files left`);
      assert.ok(!existsSync(blobs.pathFor(wheels[0]!.sha256)), 'the least recently used file went first');
      assert.ok(existsSync(blobs.pathFor(wheels[4]!.sha256)), 'the newest file stays');
      assert.ok(existsSync(blobs.pathFor(own.sha256)), 'the private file stays');
      const privateRes = await fetch(`${server.url}/packages/private-big/${own.filename}`);
      assert.equal(sha256(await privateRes.arrayBuffer()), own.sha256);
      const before = upstream.requestsTo('/files/').length;
      const again = await fetch(`${server.url}/packages/cached0/${wheels[0]!.filename}`);
      assert.equal(sha256(await again.arrayBuffer()), wheels[0]!.sha256, 'an evicted file comes back');
      assert.equal(upstream.requestsTo('/files/').length, before + 1);
    } finally {
      await server.close();
    }
  });

  test('cache purge keeps private data; gc removes orphan blobs', async () => {
    const server = await startLarder({ upstream: upstream.url });
    const cli = (...args: string[]) =>
      runCommand(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args, '--data', server.data], { cwd: new URL('../../', import.meta.url).pathname });
    try {
      await server.addUser('alice', 'alice-password');
      const own = await buildWheel(join(dir, 'own3'), { name: 'keep-me', version: '1.0' });
      await fetch(`${server.url}/legacy/`, { method: 'POST', body: await uploadForm(own), headers: { Authorization: basicAuth('alice', 'alice-password') } });
      await (await fetch(`${server.url}/packages/cached1/${wheels[1]!.filename}`)).arrayBuffer();
      const blobs = new FileBlobStore(server.data);
      assert.ok(existsSync(blobs.pathFor(wheels[1]!.sha256)));
      const stats = await cli('cache', 'stats');
      assert.equal(stats.code, 0, stats.stderr);
      assert.match(stats.stdout, /private files\s+1 /);
      assert.match(stats.stdout, /cached files\s+1 /);
      const purge = await cli('cache', 'purge');
      assert.equal(purge.code, 0, purge.stderr);
      assert.ok(!existsSync(blobs.pathFor(wheels[1]!.sha256)), 'cached blob purged');
      assert.ok(existsSync(blobs.pathFor(own.sha256)), 'private blob kept');
      const orphan = createHash('sha256').update('orphan').digest('hex');
      await blobs.writeBuffer(Buffer.from('orphan'), orphan);
      const gc = await cli('gc', '--min-age', '0');
      assert.equal(gc.code, 0, gc.stderr);
      assert.match(gc.stdout, /removed 1 orphan blob/);
      assert.ok(!existsSync(blobs.pathFor(orphan)));
      assert.ok(existsSync(blobs.pathFor(own.sha256)));
    } finally {
      await server.close();
    }
  });
});
