/**
 * The caching proxy when the upstream misbehaves: stale copies served (`X-Larder-Cache: stale`), bounded
 * 502/504 answers when nothing is cached, bounded retries, verified downloads (truncated or corrupted
 * bodies are never kept and never reach a client as a complete response), single-flight downloads,
 * Range on cached files without touching the upstream, and verified `.metadata`.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Settings } from '../../src/config/schema.js';
import type { BuiltDist } from '../fixtures/dists.js';
import type { Fault, FakeUpstream } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { eventually } from '../helpers/eventually.js';
import type { TestLarder } from '../helpers/larder.js';
import { startUpstreamBench, type UpstreamBench } from '../helpers/upstream-bench.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { PIP_ACCEPT, rawGet, type Got } from '../helpers/raw-get.js';

/** Small time-outs so that "never a hang" can be proved quickly. */
const HEADERS_TIMEOUT = 300;
const BODY_TIMEOUT = 400;
const RETRIES = 1;
/** How long a request waits for the upstream before a stale copy is served. */
const STALE_WAIT = 250;
/** Each page or document from the upstream in total, retries included. */
const DEADLINE = 1000;
/**
 * How long the client waits. Far above every time-out above, so that "never a hang" needs no upper bound on
 * how long an answer took (a wall-clock assertion a busy machine could break): a hang fails the request.
 */
const CLIENT_WAIT = 20_000;

const get = (url: string, headers: Record<string, string> = {}, method = 'GET', timeoutMs = CLIENT_WAIT) => rawGet(url, { headers, method, timeoutMs });

/** The client never received the whole, correct file as a successful response. */
function assertNotDelivered(got: Got, dist: { sha256: string; size: number }, what: string): void {
  if (got.status === 200) {
    assert.ok(got.error || got.body.length < dist.size, `${what}: a 200 response must be aborted, got all ${got.body.length} bytes and no error`);
    assert.notEqual(sha256Hex(got.body), dist.sha256, `${what}: the fault did not apply`);
  } else {
    assert.ok(got.status === 502 || got.status === 504, `${what}: status ${got.status}`);
  }
}

describe('caching proxy: upstream faults', () => {
  let bench: UpstreamBench;
  let up: FakeUpstream;
  let small: BuiltDist;
  let big: BuiltDist;
  let meta: BuiltDist;
  const larder = (overrides: Partial<Settings> = {}, clock?: ManualClock) => bench.larder(overrides, { clock });

  const fileRequests = (dist: BuiltDist, suffix = '') => up.requestsTo('/files/').filter((r) => r.path === new URL(up.fileUrl(dist, suffix as '')).pathname);
  const blobKept = (l: TestLarder, sha256: string) => l.larder.blobs.has(sha256);
  const tmpEmpty = async (l: TestLarder) => (await readdir(join(l.data, 'tmp'))).length === 0;

  before(async () => {
    bench = await startUpstreamBench('larder-proxy-faults-', {
      upstreamConnectTimeout: HEADERS_TIMEOUT,
      upstreamHeadersTimeout: HEADERS_TIMEOUT,
      upstreamBodyTimeout: BODY_TIMEOUT,
      upstreamRetries: RETRIES,
      staleWait: STALE_WAIT,
      upstreamDeadline: DEADLINE,
    });
    up = bench.up;
    small = await bench.offerWheel({ name: 'small', version: '1.0', summary: 'a small wheel' });
    big = await bench.offerWheel({ name: 'big', version: '1.0', dataFile: { bytes: 3 * 1024 * 1024, seed: 'big' } });
    meta = await bench.offerWheel({ name: 'withmeta', version: '1.0', requiresDist: ['small'] });
    for (const name of ['stale-down', 'stale-refuse', 'stale-hang', 'stale-status500', 'stale-slow', 'retried']) {
      await bench.offerWheel({ name, version: '1.0' });
    }
  });

  after(() => bench?.close());

  const staleFaults: [string, Fault][] = [
    ['down', { kind: 'down' }],
    ['refuse', { kind: 'refuse', pathPrefix: '/simple/stale-refuse/' }],
    ['hang', { kind: 'hang', pathPrefix: '/simple/stale-hang/' }],
    ['status500', { kind: 'status500', pathPrefix: '/simple/stale-status500/' }],
    ['slow', { kind: 'slow', delayMs: 3000, pathPrefix: '/simple/stale-slow/' }],
  ];
  for (const [label, fault] of staleFaults) {
    test(`upstream ${label} with a stale copy → the stale copy, X-Larder-Cache: stale, no hang`, async () => {
      const name = `stale-${label}`;
      const clock = new ManualClock(Date.now());
      const l = await larder({ pageTtl: 300 }, clock);
      const first = await get(`${l.url}/simple/${name}/`, { Accept: PIP_ACCEPT });
      assert.equal(first.status, 200);
      assert.equal(first.headers['x-larder-cache'], 'miss');
      clock.advance(400);
      await up.setFault(fault);
      try {
        up.clearLog();
        const stale = await get(`${l.url}/simple/${name}/`, { Accept: PIP_ACCEPT });
        assert.equal(stale.status, 200, stale.body.toString());
        assert.equal(stale.headers['x-larder-cache'], 'stale');
        assert.ok(stale.body.equals(first.body), 'the stale copy is the page fetched before');
        if (label !== 'down') assert.ok(up.requestsTo(`/simple/${name}/`).length >= 1, 'the upstream was asked');
        assert.ok(up.requestsTo(`/simple/${name}/`).length <= RETRIES + 1, 'bounded retries');
        const html = await get(`${l.url}/simple/${name}/`, { Accept: 'text/html' });
        assert.equal(html.status, 200);
        assert.ok(['stale', 'hit'].includes(String(html.headers['x-larder-cache'])));
      } finally {
        await up.setFault(null);
      }
      // Once the upstream is back, the entry is refreshed (the failure did not poison it); a revalidation that
      // was still waiting for the failed upstream when the fault ended has to time out first.
      await eventually(async () => {
        const back = await get(`${l.url}/simple/${name}/`, { Accept: PIP_ACCEPT });
        assert.equal(back.status, 200);
        return ['revalidated', 'hit'].includes(String(back.headers['x-larder-cache']));
      }, 'the entry is refreshed once the upstream is back');
    });
  }

  test('stale JSON API document and cached files are served while the upstream is down', async () => {
    const clock = new ManualClock(Date.now());
    const l = await larder({ pageTtl: 300 }, clock);
    const api = await get(`${l.url}/pypi/small/json`);
    assert.equal(api.status, 200);
    const file = await get(`${l.url}/packages/small/${small.filename}`);
    assert.equal(sha256Hex(file.body), small.sha256);
    clock.advance(400);
    await up.setFault({ kind: 'down' });
    try {
      const staleApi = await get(`${l.url}/pypi/small/json`);
      assert.equal(staleApi.status, 200);
      assert.equal(staleApi.headers['x-larder-cache'], 'stale');
      assert.ok(staleApi.body.equals(api.body));
      const again = await get(`${l.url}/packages/small/${small.filename}`);
      assert.equal(again.status, 200);
      assert.equal(again.headers['x-larder-cache'], 'hit');
      assert.equal(sha256Hex(again.body), small.sha256);
    } finally {
      await up.setFault(null);
    }
  });

  const coldFaults: [string, Fault, number, RegExp][] = [
    ['down', { kind: 'down' }, 502, /upstream/i],
    ['refuse', { kind: 'refuse' }, 502, /upstream/i],
    ['status500', { kind: 'status500' }, 502, /upstream.*500|500/i],
    ['hang', { kind: 'hang' }, 504, /upstream.*(tim|deadline)|timed out/i],
    ['slow', { kind: 'slow', delayMs: 5000 }, 504, /upstream.*(tim|deadline)|timed out/i],
  ];
  for (const [label, fault, status, message] of coldFaults) {
    test(`upstream ${label} and nothing cached → ${status} without a hang, with a clear message`, async () => {
      const l = await larder();
      await up.setFault(fault);
      try {
        up.clearLog();
        const page = await get(`${l.url}/simple/small/`, { Accept: PIP_ACCEPT });
        assert.equal(page.status, status, page.body.toString());
        const text = page.body.toString();
        assert.match(text, message);
        assert.match(text, /no cached copy|not cached/i);
        assert.match(String(page.headers['content-type']), /^text\/plain/);
        assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');
        assert.ok(up.requestsTo('/simple/small/').length <= RETRIES + 1, 'bounded retries');

        const api = await get(`${l.url}/pypi/small/json`);
        assert.equal(api.status, status);
        assert.match(String(api.headers['content-type']), /^application\/json/);
        assert.match((JSON.parse(api.body.toString()) as { message: string }).message, /upstream/i);

        const file = await get(`${l.url}/packages/small/${small.filename}`);
        assert.equal(file.status, status);
      } finally {
        await up.setFault(null);
      }
    });
  }

  test('500s are retried, boundedly: exactly retries + 1 upstream requests, then 502; transient 500s are absorbed', async () => {
    const l = await larder({ upstreamRetries: 2 });
    await up.setFault({ kind: 'status500', pathPrefix: '/simple/retried/' });
    try {
      up.clearLog();
      const got = await get(`${l.url}/simple/retried/`);
      assert.equal(got.status, 502);
      const log = up.requestsTo('/simple/retried/');
      assert.equal(log.length, 3, 'one request and two retries');
      assert.ok(log.every((r) => r.status === 500));
    } finally {
      await up.setFault(null);
    }
    // Two 500s and then a good answer: the client never notices.
    await up.setFault({ kind: 'status500', pathPrefix: '/simple/retried/', count: 2 });
    up.clearLog();
    const ok = await get(`${l.url}/simple/retried/`);
    assert.equal(ok.status, 200);
    assert.deepEqual(
      up.requestsTo('/simple/retried/').map((r) => r.status),
      [500, 500, 200],
    );
    // A 404 is an answer, not a failure: not retried.
    up.clearLog();
    assert.equal((await get(`${l.url}/simple/not-there/`)).status, 404);
    assert.equal(up.requestsTo('/simple/not-there/').length, 1);
  });

  test('a truncated file body: the client response is aborted (or 502), nothing is kept, the next request re-downloads', async () => {
    const l = await larder();
    assert.equal((await get(`${l.url}/simple/big/`)).status, 200);
    await up.setFault({ kind: 'truncate', pathPrefix: '/files/', count: 1 });
    up.clearLog();
    const broken = await get(`${l.url}/packages/big/${big.filename}`);
    assertNotDelivered(broken, big, 'truncated download');
    // undici's retry interceptor tries to resume the cut body with a Range request; this upstream answers
    // it with the whole file (200), which cannot be appended, so the download fails.
    const attempts = fileRequests(big);
    assert.equal(attempts[0]!.headers.range, undefined);
    assert.ok(attempts.length <= 1 + RETRIES, `${attempts.length} attempts`);
    for (const resumed of attempts.slice(1)) assert.match(String(resumed.headers.range), /^bytes=\d+-\d+$/);
    await eventually(() => tmpEmpty(l), 'tmp/ is cleaned up');
    assert.equal(await blobKept(l, big.sha256), false, 'nothing in blobs/');

    up.clearLog();
    const good = await get(`${l.url}/packages/big/${big.filename}`);
    assert.equal(good.status, 200);
    assert.equal(good.error, undefined);
    assert.equal(sha256Hex(good.body), big.sha256);
    assert.equal(fileRequests(big).length, 1, 'downloaded again');
    await eventually(() => blobKept(l, big.sha256), 'the verified file is kept');
  });

  for (const [label, dist] of [
    ['small', () => small],
    ['large', () => big],
  ] as const) {
    test(`a ${label} file with the wrong hash: nothing kept, the response aborted or 502, a later good download works`, async () => {
      const l = await larder();
      const d = dist();
      const name = d.name;
      assert.equal((await get(`${l.url}/simple/${name}/`)).status, 200);
      await up.setFault({ kind: 'wrongHash', count: 1 });
      up.clearLog();
      const broken = await get(`${l.url}/packages/${name}/${d.filename}`);
      assertNotDelivered(broken, d, 'wrong-hash download');
      if (broken.status !== 200) assert.match(broken.body.toString(), /wrong content|hash/i);
      assert.equal(fileRequests(d).length, 1);
      await eventually(() => tmpEmpty(l), 'tmp/ is cleaned up');
      assert.equal(await blobKept(l, d.sha256), false, 'nothing in blobs/');
      const corruptSha = sha256Hex(Buffer.concat([broken.body]));
      assert.equal(await blobKept(l, corruptSha), false);

      const good = await get(`${l.url}/packages/${name}/${d.filename}`);
      assert.equal(good.status, 200);
      assert.equal(good.error, undefined);
      assert.equal(sha256Hex(good.body), d.sha256);
      assert.equal(fileRequests(d).length, 2);
      await eventually(() => blobKept(l, d.sha256), 'the verified file is kept');
    });
  }

  test('a stall in the middle of a file body: the client response is aborted within the body time-out, nothing kept', async () => {
    const l = await larder();
    assert.equal((await get(`${l.url}/simple/big/`)).status, 200);
    await up.setFault({ kind: 'hang', afterBytes: 64 * 1024, pathPrefix: '/files/', count: 1 });
    const stalled = await get(`${l.url}/packages/big/${big.filename}`);
    assertNotDelivered(stalled, big, 'stalled download');
    assert.equal(stalled.clientTimedOut, false, 'larder ended the response (its body time-out), not the client');
    await eventually(() => tmpEmpty(l), 'tmp/ is cleaned up');
    assert.equal(await blobKept(l, big.sha256), false);
  });

  const burst = async (l: TestLarder, d: BuiltDist): Promise<void> => {
    assert.equal((await get(`${l.url}/simple/${d.name}/`)).status, 200);
    up.clearLog();
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(`${l.url}/packages/${d.name}/${d.filename}`)));
    for (const [i, got] of answers.entries()) {
      assert.equal(got.status, 200, `${d.filename} client ${i}: ${got.status} ${got.body.toString().slice(0, 200)}`);
      assert.equal(got.error, undefined, `${d.filename} client ${i}: ${got.error?.message}`);
      assert.equal(got.body.length, d.size, `${d.filename} client ${i}: length`);
      assert.equal(sha256Hex(got.body), d.sha256, `${d.filename} client ${i}: verified bytes`);
    }
    assert.equal(fileRequests(d).length, 1, 'exactly one upstream download');
    assert.equal(up.requestsTo('/simple/').length, 0, 'the page was cached already');
    await eventually(() => blobKept(l, d.sha256), 'kept');
  };

  test('20 concurrent first downloads of a small file (arrives in one piece), 8 times → 1 upstream request each, 20 verified copies', async () => {
    const l = await larder();
    for (let i = 0; i < 8; i++) {
      const name = `burst-${i}`;
      const d = await bench.offerWheel({ name, version: '1.0' });
      await burst(l, d);
    }
  });

  test('20 concurrent first downloads of a 3 MB file, throttled → exactly 1 upstream request, 20 verified copies', async () => {
    const l = await larder();
    await up.setFault({ kind: 'slow', bytesPerSecond: 12 * 1024 * 1024, pathPrefix: '/files/', count: 1 });
    try {
      await burst(l, big);
    } finally {
      await up.setFault(null);
    }
  });

  test('a cached file is served from disk with Range (206), HEAD and 416, never touching the upstream', async () => {
    const l = await larder();
    const first = await get(`${l.url}/packages/big/${big.filename}`);
    assert.equal(first.status, 200);
    assert.equal(first.headers['x-larder-cache'], 'miss');
    await eventually(() => blobKept(l, big.sha256), 'kept');
    const whole = first.body;
    const count = up.requests.length;

    const head = await get(`${l.url}/packages/big/${big.filename}`, {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers['content-length']), big.size);
    assert.equal(head.headers['accept-ranges'], 'bytes');

    const part = await get(`${l.url}/packages/big/${big.filename}`, { Range: 'bytes=0-99' });
    assert.equal(part.status, 206);
    assert.equal(part.headers['x-larder-cache'], 'hit');
    assert.equal(part.headers['content-range'], `bytes 0-99/${big.size}`);
    assert.ok(part.body.equals(whole.subarray(0, 100)));

    const middle = await get(`${l.url}/packages/big/${big.filename}`, { Range: 'bytes=1000000-1000999' });
    assert.equal(middle.status, 206);
    assert.ok(middle.body.equals(whole.subarray(1_000_000, 1_001_000)));

    const suffix = await get(`${l.url}/packages/big/${big.filename}`, { Range: 'bytes=-100' });
    assert.equal(suffix.status, 206);
    assert.equal(suffix.headers['content-range'], `bytes ${big.size - 100}-${big.size - 1}/${big.size}`);
    assert.ok(suffix.body.equals(whole.subarray(big.size - 100)));

    const beyond = await get(`${l.url}/packages/big/${big.filename}`, { Range: `bytes=${big.size}-` });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers['content-range'], `bytes */${big.size}`);

    const full = await get(`${l.url}/packages/big/${big.filename}`);
    assert.equal(full.headers['x-larder-cache'], 'hit');
    assert.equal(sha256Hex(full.body), big.sha256);
    assert.equal(up.requests.length, count, 'the upstream was not asked again');

    // Even with the upstream gone (and the page stale) the file is served.
    await up.setFault({ kind: 'down' });
    try {
      const offlineRange = await get(`${l.url}/packages/big/${big.filename}`, { Range: 'bytes=0-9' });
      assert.equal(offlineRange.status, 206);
      assert.ok(offlineRange.body.equals(whole.subarray(0, 10)));
    } finally {
      await up.setFault(null);
    }
  });

  test('.metadata is proxied, verified and cached; a .metadata with the wrong hash is not kept', async () => {
    const l = await larder();
    assert.equal((await get(`${l.url}/simple/withmeta/`)).status, 200);
    await up.setFault({ kind: 'wrongHash', count: 1, pathPrefix: new URL(up.fileUrl(meta, '.metadata')).pathname });
    up.clearLog();
    const broken = await get(`${l.url}/packages/withmeta/${meta.filename}.metadata`);
    assertNotDelivered(broken, { sha256: meta.metadataSha256, size: meta.metadata.length }, 'wrong-hash .metadata');
    assert.equal(fileRequests(meta, '.metadata').length, 1);
    await eventually(() => tmpEmpty(l), 'tmp/ is cleaned up');
    assert.equal(await blobKept(l, meta.metadataSha256), false);

    const good = await get(`${l.url}/packages/withmeta/${meta.filename}.metadata`);
    assert.equal(good.status, 200);
    assert.equal(good.error, undefined);
    assert.ok(good.body.equals(meta.metadata), 'the upstream bytes, unchanged');
    assert.equal(fileRequests(meta, '.metadata').length, 2);
    await eventually(() => blobKept(l, meta.metadataSha256), 'kept');

    const hit = await get(`${l.url}/packages/withmeta/${meta.filename}.metadata`);
    assert.equal(hit.headers['x-larder-cache'], 'hit');
    assert.ok(hit.body.equals(meta.metadata));
    assert.equal(fileRequests(meta, '.metadata').length, 2, 'served from disk');
    assert.equal(fileRequests(meta).length, 0, 'the wheel itself was never downloaded');

    // A wheel without .metadata upstream: 404, not a made-up file.
    const none = await get(`${l.url}/packages/withmeta/${meta.filename}.asc`);
    assert.equal(none.status, 404);
  });
});
