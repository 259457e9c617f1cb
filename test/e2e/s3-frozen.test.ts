/**
 * A frozen S3 under several larders (docs/scale-out.md, "When S3 hangs" and "/health and the load
 * balancer"): two nodes share PostgreSQL and a bucket in a real S3 (Ceph's RADOS Gateway), whose gateway is
 * then stopped (SIGSTOP): it accepts connections and requests but answers none. Every S3 request has a
 * deadline (LARDER_S3_DEADLINE, the default 8 s here), so on every node a file request, cached or not, is
 * answered 503 naming the blob store and the limit within pip's 15 s instead of hanging for the SDK's minute
 * and a half, while project pages (private and cached upstream) are still served and /health keeps the node
 * (200 "degraded", files marked unavailable) rather than taking it out. Once the gateway goes on, files are
 * served again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openMigrationTargets } from '../../src/cli/migration-targets.js';
import type { Settings } from '../../src/config/schema.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { eventually } from '../helpers/eventually.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { blobStoreSettings, exportTestCredentials, startRealS3, type TestS3Server } from '../helpers/s3-server.js';
import { publish, uploadForm } from '../helpers/upload-form.js';

/** pip's own time-out: a file request must be answered within it. */
const PIP_TIMEOUT_MS = 15_000;
/** An upload's PUT carries a body: it gets four deadlines (32 s). */
const UPLOAD_BOUND = { timeout: 45_000 };

let dir: string;
let bucket: string;
let pg: TestPostgres;
let upstream: FakeUpstream;
let s3: TestS3Server;
let nodes: TestLarder[];
let cached: BuiltDist;
let uncached: BuiltDist;
let own: BuiltDist;
let later: BuiltDist;
const auth = basicAuth('alice', 'alice-password');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-s3-frozen-'));
  cached = await buildWheel(join(dir, 'c'), { name: 'frozen-cached', version: '1.0' });
  uncached = await buildWheel(join(dir, 'u'), { name: 'frozen-uncached', version: '1.0' });
  own = await buildWheel(join(dir, 'o'), { name: 'frozen-own', version: '1.0' });
  later = await buildWheel(join(dir, 'l'), { name: 'frozen-own', version: '2.0' });
  [pg, s3, upstream] = await Promise.all([startPostgres(), startRealS3(), startFakeUpstream()]);
  upstream.addProject('frozen-cached', [cached]);
  upstream.addProject('frozen-uncached', [uncached]);
  bucket = await s3.createBucket();
  exportTestCredentials();
  const shared: Partial<Settings> = { databaseUrl: await pg.createDatabase(), upstream: upstream.url, ...blobStoreSettings(s3, bucket) };
  nodes = [await startLarder(shared), await startLarder(shared)];
  const [a, b] = nodes as [TestLarder, TestLarder];
  await a.addUser('alice', 'alice-password');
  await publish(a.url, auth, own);
  const first = await fetch(`${b.url}/packages/frozen-cached/${cached.filename}`);
  assert.equal(first.status, 200);
  await first.arrayBuffer();
  for (const node of nodes) {
    for (const project of ['frozen-cached', 'frozen-uncached', 'frozen-own']) {
      const page = await fetch(`${node.url}/simple/${project}/`);
      assert.equal(page.status, 200, `${project} on ${node.url}`);
      await page.arrayBuffer();
    }
  }
  await s3.freeze();
});

after(async () => {
  await s3?.thaw();
  await Promise.all((nodes ?? []).map((node) => node.close()));
  await Promise.all([upstream?.close(), s3?.close(), pg?.cleanup()]);
  await rm(dir, { recursive: true, force: true });
});

const fileUrl = (node: TestLarder, dist: BuiltDist) => `${node.url}/packages/${dist.name}/${dist.filename}`;

/** The answer to GET `url`, its body as text, and how long it took. */
async function timedGet(url: string): Promise<{ status: number; statusText: string; body: string; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2 * PIP_TIMEOUT_MS) });
    const body = await res.text();
    return { status: res.status, statusText: res.statusText, body, ms: performance.now() - started };
  } catch (err) {
    return { status: 0, statusText: '', body: `no answer: ${(err as Error).message}`, ms: performance.now() - started };
  }
}

test('on every node a file request, cached or not, is answered 503 naming the blob store and the limit within 15 s; pages are still served', async () => {
  const files = nodes.flatMap((node) => [own, cached, uncached].map((dist) => ({ url: fileUrl(node, dist), dist, node })));
  const answers = await Promise.all(files.map(({ url }) => timedGet(url)));
  for (const [i, answer] of answers.entries()) {
    const { url } = files[i]!;
    assert.equal(answer.status, 503, `${url}: ${answer.body}`);
    assert.match(
      answer.body,
      /^The blob store cannot be used: S3 \w+ on s3:\/\/larder-[0-9a-f]+\/larder\/ .* failed: DeadlineExceeded \(no answer within 8 s\)\.\n$/,
    );
    assert.equal(answer.statusText, answer.body.trim());
    assert.ok(answer.ms < PIP_TIMEOUT_MS, `${url} was answered after ${Math.round(answer.ms)} ms`);
  }
  for (const { node, dist } of files) {
    const page = await timedGet(`${node.url}/simple/${dist.name}/`);
    assert.equal(page.status, 200);
    assert.match(page.body, new RegExp(dist.filename));
    assert.ok(page.ms < 2_000, `the page of ${dist.name} took ${Math.round(page.ms)} ms`);
  }
});

test('/health on every node keeps it for pages: 200 degraded, files unavailable, S3 down', async () => {
  for (const node of nodes) {
    const started = performance.now();
    const res = await fetch(`${node.url}/health`);
    assert.ok(performance.now() - started < PIP_TIMEOUT_MS);
    assert.equal(res.status, 200);
    const health = (await res.json()) as {
      status: string;
      serving: { pages: boolean; files: boolean; writes: boolean };
      backends: Record<string, { kind: string; status: string; neededFor: string; error?: string }>;
    };
    assert.equal(health.status, 'degraded');
    assert.deepEqual(health.serving, { pages: true, files: false, writes: false });
    assert.equal(health.backends.blobs?.kind, 's3');
    assert.equal(health.backends.blobs?.status, 'down');
    assert.equal(health.backends.blobs?.neededFor, 'files');
    assert.equal(health.backends.database?.status, 'ok');
  }
});

test('an upload to a frozen S3 fails 503 within its deadlines, and nothing of it is listed on any node', UPLOAD_BOUND, async () => {
  const res = await fetch(`${nodes[1]!.url}/legacy/`, { method: 'POST', headers: { Authorization: auth }, body: await uploadForm(later) });
  const body = await res.text();
  assert.equal(res.status, 503, body);
  assert.match(body, /^The blob store cannot be used: S3 \w+ on .* failed: DeadlineExceeded \(no answer within \d+ (ms|s)\)\.\n$/);
  for (const node of nodes) {
    const page = await (await fetch(`${node.url}/simple/frozen-own/`)).text();
    assert.doesNotMatch(page, new RegExp(later.filename));
  }
});

test('larder migrate keeps the deadline for an S3 target: its reads of a frozen S3 fail within the limit', async () => {
  const settings = blobStoreSettings(s3, bucket, 'migrated');
  const targets = await openMigrationTargets({ ...settings, databaseUrl: null, databasePool: 10, s3Deadline: 400, data: dir });
  try {
    await assert.rejects(targets.blobs!.has(own.sha256), /no answer within 400 ms/);
  } finally {
    await targets.close();
  }
});

test('once S3 answers again, every node serves the files', async () => {
  await s3.thaw();
  for (const node of nodes) {
    for (const dist of [own, cached]) {
      await eventually(async () => (await timedGet(fileUrl(node, dist))).status === 200, `${dist.filename} from ${node.url}`, 30_000);
    }
  }
});
