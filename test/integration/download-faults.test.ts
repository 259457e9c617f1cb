/**
 * File downloads against upstreams that misbehave on the wire (docs/upstream.md, "Bounds" and
 * "Downloads"): endless bodies, wrong Content-Length, a stall after the head, HTTP/1.0 close-delimited
 * bodies. Nothing unverified or partial is kept, nothing is read without bound, and a download of unknown
 * length stops once its clients have gone.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Settings } from '../../src/config/schema.js';
import type { BuiltDist } from '../fixtures/dists.js';
import type { FakeUpstream } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { eventually } from '../helpers/eventually.js';
import type { TestLarder } from '../helpers/larder.js';
import { startUpstreamBench, type UpstreamBench } from '../helpers/upstream-bench.js';
import { rawGet, type Got } from '../helpers/raw-get.js';
import { rawRequest } from '../helpers/raw-socket.js';

/** The client did not get the whole file as a successful response. */
function assertNotDelivered(got: Got, dist: BuiltDist, what: string): void {
  if (got.status === 200) assert.ok(got.error || sha256Hex(got.body) !== dist.sha256, `${what}: a 200 must not carry the file whole`);
  else assert.ok(got.status === 502 || got.status === 504, `${what}: status ${got.status}`);
}

describe('file downloads against a misbehaving upstream', () => {
  let bench: UpstreamBench;
  let up: FakeUpstream;
  let big: BuiltDist;
  let small: BuiltDist;
  const larder = (overrides: Partial<Settings> = {}) => bench.larder(overrides);
  const tmpEmpty = async (l: TestLarder) => (await readdir(join(l.data, 'tmp'))).length === 0;
  const fileRequests = (dist: BuiltDist) => up.requestsTo('/files/').filter((r) => r.path.endsWith(encodeURIComponent(dist.filename)));

  before(async () => {
    bench = await startUpstreamBench('larder-download-faults-', { upstreamRetries: 0, upstreamBodyTimeout: 1000 });
    up = bench.up;
    big = await bench.offerWheel({ name: 'big', version: '1.0', dataFile: { bytes: 3 * 1024 * 1024, seed: 'download-faults' } });
    small = await bench.offerWheel({ name: 'small', version: '1.0' });
  });

  after(() => bench?.close());

  test('an endless body of unknown length stops being read once its only client has gone; nothing is kept', async () => {
    up.configure({ fileHashes: false });
    try {
      const l = await larder();
      assert.equal((await rawGet(`${l.url}/simple/big/`)).status, 200);
      await up.setFault({ kind: 'endless', pathPrefix: '/files/' });
      up.clearLog();
      const got = await rawRequest(`${l.url}/packages/big/${big.filename}`, { maxBytes: 2 * 1024 * 1024 });
      assert.equal(got.ended, 'limit');
      assert.match(got.statusLine, / 200 /);
      const [upstreamSide] = fileRequests(big);
      // The fake stops producing the endless body only when larder closes the connection; its count is then final.
      await eventually(() => upstreamSide!.delivering === false, 'larder closes the upstream connection');
      const sent = upstreamSide!.bytesSent;
      assert.ok(sent < 64 * 1024 * 1024, `${sent} bytes read`);
      await eventually(() => tmpEmpty(l), 'tmp/ is emptied');
    } finally {
      up.configure({ fileHashes: true });
      await up.setFault(null);
    }
  });

  test('an endless body with a client that stays is cut at LARDER_MAX_FILE_SIZE; the client never gets a complete 200', async () => {
    up.configure({ fileHashes: false });
    try {
      const l = await larder({ maxFileSize: 4 * 1024 * 1024 });
      await up.setFault({ kind: 'endless', pathPrefix: '/files/' });
      const got = await rawGet(`${l.url}/packages/big/${big.filename}`, { timeoutMs: 20_000 });
      assertNotDelivered(got, big, 'endless body');
      assert.ok(got.body.length <= 4 * 1024 * 1024);
      await eventually(() => tmpEmpty(l), 'tmp/ is emptied');
      assert.ok(fileRequests(big).every((r) => !r.delivering));
    } finally {
      up.configure({ fileHashes: true });
      await up.setFault(null);
    }
  });

  test('a download of known size goes on after its client has gone, and the file is kept', async () => {
    const l = await larder();
    await up.setFault({ kind: 'slow', bytesPerSecond: 4 * 1024 * 1024, pathPrefix: '/files/', count: 1 });
    const got = await rawRequest(`${l.url}/packages/big/${big.filename}`, { maxBytes: 256 * 1024 });
    assert.equal(got.ended, 'limit');
    const head = async () => (await rawGet(`${l.url}/packages/big/${big.filename}`, { method: 'HEAD' })).headers['x-larder-cache'] === 'hit';
    await eventually(head, 'the file is kept', 10_000);
    up.clearLog();
    const cached = await rawGet(`${l.url}/packages/big/${big.filename}`);
    assert.equal(cached.headers['x-larder-cache'], 'hit');
    assert.equal(sha256Hex(cached.body), big.sha256);
    assert.equal(fileRequests(big).length, 0);
  });

  for (const delta of [-1000, 1000]) {
    test(`a Content-Length ${delta < 0 ? 'smaller' : 'larger'} than the body: the client never gets the file whole, nothing is kept`, async () => {
      const l = await larder();
      await up.setFault({ kind: 'wrongLength', delta, pathPrefix: '/files/' });
      try {
        const got = await rawGet(`${l.url}/packages/big/${big.filename}`, { timeoutMs: 20_000 });
        assertNotDelivered(got, big, `Content-Length ${delta}`);
        await eventually(() => tmpEmpty(l), 'tmp/ is emptied');
        assert.equal(await l.larder.blobs.has(big.sha256), false);
      } finally {
        await up.setFault(null);
      }
    });
  }

  test('a head and then silence: the response fails within the idle time-out, nothing is kept', async () => {
    const l = await larder();
    await up.setFault({ kind: 'hang', afterBytes: 0, pathPrefix: '/files/' });
    try {
      const got = await rawGet(`${l.url}/packages/big/${big.filename}`, { timeoutMs: 20_000 });
      assertNotDelivered(got, big, 'hang after head');
      assert.equal(got.clientTimedOut, false, 'larder ended the response (its idle time-out), not the client');
      await eventually(() => tmpEmpty(l), 'tmp/ is emptied');
    } finally {
      await up.setFault(null);
    }
  });

  for (const framing of ['http10', 'http10-length', 'close'] as const) {
    test(`HTTP/1.0 and close-delimited bodies (${framing}) are read whole, verified and kept`, async () => {
      up.configure({ framing });
      try {
        const l = await larder();
        for (const dist of [big, small]) {
          const got = await rawGet(`${l.url}/packages/${dist.name}/${dist.filename}`, { timeoutMs: 20_000 });
          assert.equal(got.status, 200);
          assert.equal(got.error, undefined);
          assert.equal(sha256Hex(got.body), dist.sha256);
          await eventually(() => l.larder.blobs.has(dist.sha256), `${dist.filename} is kept`);
        }
      } finally {
        up.configure({ framing: 'node' });
      }
    });
  }
});
