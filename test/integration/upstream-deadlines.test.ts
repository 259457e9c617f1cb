/**
 * Deadlines (docs/upstream.md): one upstream page or JSON document gets LARDER_UPSTREAM_DEADLINE in all,
 * retries included; with nothing cached that is a 504 naming the upstream and the deadline; a stale copy
 * is served after LARDER_STALE_WAIT while revalidation goes on; a trickling upstream is cut at the deadline
 * and does not hold the project after it recovers. Files have only the idle time-out.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Settings } from '../../src/config/schema.js';
import type { BuiltDist } from '../fixtures/dists.js';
import type { FakeUpstream } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { eventually } from '../helpers/eventually.js';
import { suiteUpstreamBench } from '../helpers/upstream-bench.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { PIP_ACCEPT, rawGet } from '../helpers/raw-get.js';

const DEADLINE = 1200;
const STALE_WAIT = 300;
/**
 * How long the client waits for an answer. Above the deadline and the stale wait, below the per-try
 * time-outs (30 s): an answer at all shows that the deadline or the stale wait gave it, so no test needs an
 * upper bound on the time an answer took (a wall-clock assertion a busy machine could break).
 */
const CLIENT_WAIT = 20_000;

describe('upstream deadlines', () => {
  const bench = suiteUpstreamBench('larder-deadlines-', {
    // Per-try time-outs far longer than the deadline: only the deadline can bound these answers.
    upstreamHeadersTimeout: 30_000,
    upstreamBodyTimeout: 30_000,
    upstreamRetries: 2,
    upstreamDeadline: DEADLINE,
    staleWait: STALE_WAIT,
  });
  let up: FakeUpstream;
  let big: BuiltDist;
  const larder = (overrides: Partial<Settings> = {}, clock?: ManualClock) => bench.larder(overrides, { clock });

  before(async () => {
    up = bench.up;
    for (const name of ['hung', 'stale', 'trickle', 'api', 'rootless']) await bench.offerWheel({ name, version: '1.0' });
    big = await bench.offerWheel({ name: 'big', version: '1.0', dataFile: { bytes: 3 * 1024 * 1024, seed: 'deadline-big' } });
  });

  test('an upstream that never answers: 504 at the deadline (not retries × time-outs), naming the upstream and the deadline', async () => {
    const l = await larder();
    await up.setFault({ kind: 'hang', pathPrefix: '/simple/hung/' });
    try {
      const got = await rawGet(`${l.url}/simple/hung/`, { headers: { Accept: PIP_ACCEPT }, timeoutMs: CLIENT_WAIT });
      assert.equal(got.status, 504);
      // Not before the deadline: a lower bound, which load can only make longer.
      assert.ok(got.ms >= DEADLINE - 50, `answered in ${got.ms} ms`);
      const message = got.body.toString();
      assert.ok(message.includes(up.url), message);
      assert.match(message, /1\.2 s deadline \(LARDER_UPSTREAM_DEADLINE\)/);
      assert.match(got.headers['content-type'] ?? '', /^text\/plain/);
    } finally {
      await up.setFault(null);
    }
  });

  test('the JSON API document has the same deadline, and answers in JSON', async () => {
    const l = await larder();
    await up.setFault({ kind: 'hang', pathPrefix: '/pypi/api/' });
    try {
      const got = await rawGet(`${l.url}/pypi/api/json`, { timeoutMs: CLIENT_WAIT });
      assert.equal(got.status, 504);
      assert.match(JSON.parse(got.body.toString()).message, /LARDER_UPSTREAM_DEADLINE/);
    } finally {
      await up.setFault(null);
    }
  });

  test('a stale copy is answered after LARDER_STALE_WAIT while the upstream hangs; revalidation goes on and lands later', async () => {
    const clock = new ManualClock(Date.now());
    // The revalidation takes longer than the stale wait (and the deadline is out of the way).
    const l = await larder({ pageTtl: 60_000, upstreamDeadline: 30_000 }, clock);
    const first = await rawGet(`${l.url}/simple/stale/`, { headers: { Accept: PIP_ACCEPT } });
    assert.equal(first.headers['x-larder-cache'], 'miss');
    clock.advance(61_000);
    up.touch('stale');
    await up.setFault({ kind: 'slow', delayMs: DEADLINE / 2, pathPrefix: '/simple/stale/', count: 1 });
    up.clearLog();
    const stale = await rawGet(`${l.url}/simple/stale/`, { headers: { Accept: PIP_ACCEPT }, timeoutMs: CLIENT_WAIT });
    assert.equal(stale.status, 200);
    assert.equal(stale.headers['x-larder-cache'], 'stale');
    assert.ok(stale.body.equals(first.body));
    assert.ok(stale.ms >= STALE_WAIT - 50, `answered in ${stale.ms} ms, before the stale wait`);
    // The revalidation that was under way finishes in the background: once it has landed, the answer is fresh, from memory.
    let fresh = stale;
    await eventually(async () => {
      fresh = await rawGet(`${l.url}/simple/stale/`, { headers: { Accept: PIP_ACCEPT } });
      return fresh.headers['x-larder-cache'] === 'hit';
    }, 'the background revalidation lands in the cache');
    assert.notEqual(fresh.headers['x-pypi-last-serial'], first.headers['x-pypi-last-serial']);
    assert.equal(up.requestsTo('/simple/stale/').length, 1, 'one revalidation');
  });

  test('a page trickling at 1 byte/s is cut at the deadline for everyone waiting; after recovery the next request fetches afresh', async () => {
    const l = await larder();
    await up.setFault({ kind: 'slow', bytesPerSecond: 1, pathPrefix: '/simple/trickle/' });
    up.clearLog();
    try {
      const first = rawGet(`${l.url}/simple/trickle/`, { headers: { Accept: PIP_ACCEPT }, timeoutMs: CLIENT_WAIT });
      await eventually(() => up.requestsTo('/simple/trickle/').length === 1, 'the first request reaches the upstream');
      const [a, b] = await Promise.all([first, rawGet(`${l.url}/simple/trickle/`, { headers: { Accept: PIP_ACCEPT }, timeoutMs: CLIENT_WAIT })]);
      for (const got of [a, b]) assert.equal(got.status, 504);
    } finally {
      await up.setFault(null);
    }
    up.clearLog();
    const back = await rawGet(`${l.url}/simple/trickle/`, { headers: { Accept: PIP_ACCEPT } });
    assert.equal(back.status, 200);
    assert.equal(back.headers['x-larder-cache'], 'miss');
    assert.equal(up.requestsTo('/simple/trickle/').length, 1);
  });

  test('a file download has no total deadline: a 3 MB file at 1 MB/s takes longer than the page deadline and arrives whole', async () => {
    const l = await larder({ upstreamBodyTimeout: 1000 });
    assert.equal((await rawGet(`${l.url}/simple/big/`)).status, 200);
    await up.setFault({ kind: 'slow', bytesPerSecond: 1024 * 1024, pathPrefix: '/files/' });
    try {
      const got = await rawGet(`${l.url}/packages/big/${big.filename}`, { timeoutMs: CLIENT_WAIT });
      assert.equal(got.status, 200);
      assert.equal(got.error, undefined);
      // A lower bound of the throttle (3 MB at 1 MB/s), which load can only make longer.
      assert.ok(got.ms > DEADLINE, `took ${got.ms} ms`);
      assert.equal(sha256Hex(got.body), big.sha256);
    } finally {
      await up.setFault(null);
    }
  });

  test('the project list: a stored list is served at once (not after LARDER_STALE_WAIT) while a refresh hangs', async () => {
    const clock = new ManualClock(Date.now());
    // A stale wait longer than the client waits: only an answer that does not wait for the refresh arrives.
    const l = await larder({ rootTtl: 60_000, upstreamDeadline: 30_000, staleWait: 30_000 }, clock);
    const first = await rawGet(`${l.url}/simple/`, { headers: { Accept: 'text/html' } });
    assert.equal(first.status, 200);
    assert.match(first.body.toString(), /rootless/);
    const asked = up.requestsTo('/simple/').length;
    clock.advance(61_000);
    await up.setFault({ kind: 'hang', pathPrefix: '/simple/', count: 3 });
    try {
      // The deadline, the time-outs and the stale wait are all 30 s, longer than the client waits.
      const got = await rawGet(`${l.url}/simple/`, { headers: { Accept: 'text/html' }, timeoutMs: CLIENT_WAIT });
      assert.equal(got.status, 200);
      assert.equal(got.error, undefined);
      assert.match(got.body.toString(), /rootless/);
      await eventually(async () => up.requestsTo('/simple/').length > asked, 'the refresh goes on in the background');
    } finally {
      await up.setFault(null);
    }
  });
});
