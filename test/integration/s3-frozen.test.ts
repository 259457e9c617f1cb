/**
 * A frozen S3 (it accepts connections and requests but never answers) against a larder whose blob store is
 * in it (docs/scale-out.md, "When S3 hangs"): each S3 request has a deadline (LARDER_S3_DEADLINE, short
 * here), so a file download and an upload are answered 503 naming the blob store and the limit instead of
 * hanging for the SDK's minute and a half, while project pages are still served and /health keeps the node
 * (200 "degraded", files marked unavailable) rather than taking it out. Each test's time-out is the bound:
 * without the deadline a file request hangs past it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openMigrationTargets } from '../../src/cli/migration-targets.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { blobStoreSettings, exportTestCredentials, startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { publish, uploadForm } from '../helpers/upload-form.js';

const DEADLINE_MS = 400;
/** Well under the SDK's own bounds (30 s per attempt, 3 attempts): only the deadline answers in time. */
const BOUND = { timeout: 10_000 };

let dir: string;
let bucket: string;
let upstream: FakeUpstream;
let s3: TestS3Server;
let larder: TestLarder;
let cached: BuiltDist;
let own: BuiltDist;
let later: BuiltDist;
const auth = basicAuth('alice', 'alice-password');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-s3-frozen-'));
  cached = await buildWheel(join(dir, 'c'), { name: 'frozen-cached', version: '1.0' });
  own = await buildWheel(join(dir, 'o'), { name: 'frozen-own', version: '1.0' });
  later = await buildWheel(join(dir, 'l'), { name: 'frozen-own', version: '2.0' });
  upstream = await startFakeUpstream();
  upstream.addProject('frozen-cached', [cached]);
  s3 = await startS3Server();
  bucket = await s3.createBucket();
  exportTestCredentials();
  larder = await startLarder({ upstream: upstream.url, ...blobStoreSettings(s3, bucket), s3Deadline: DEADLINE_MS });
  await larder.addUser('alice', 'alice-password');
  await publish(larder.url, auth, own);
  const first = await fetch(`${larder.url}/packages/frozen-cached/${cached.filename}`);
  assert.equal(first.status, 200);
  await first.arrayBuffer();
  await s3.freeze();
});

after(async () => {
  await s3?.thaw();
  await larder?.close();
  await Promise.all([upstream?.close(), s3?.close()]);
  await rm(dir, { recursive: true, force: true });
});

const fileUrl = (dist: BuiltDist) => `${larder.url}/packages/${dist.name}/${dist.filename}`;

test('a file request to a frozen S3 is answered 503 naming the blob store and the time limit; pages are still served', BOUND, async () => {
  for (const dist of [own, cached]) {
    const res = await fetch(fileUrl(dist));
    const body = await res.text();
    assert.equal(res.status, 503, body);
    assert.match(
      body,
      /^The blob store cannot be used: S3 \w+ on s3:\/\/larder-[0-9a-f]+\/larder\/ .* failed: DeadlineExceeded \(no answer within 400 ms\)\.\n$/,
    );
    assert.equal(res.statusText, body.trim());
    const page = await fetch(`${larder.url}/simple/${dist.name}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), new RegExp(dist.filename));
  }
});

test('/health keeps the node for pages: 200 degraded, files unavailable, S3 down', BOUND, async () => {
  const res = await fetch(`${larder.url}/health`);
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
});

test('an upload to a frozen S3 fails 503 within its bound, and nothing of it is listed', BOUND, async () => {
  const res = await fetch(`${larder.url}/legacy/`, { method: 'POST', headers: { Authorization: auth }, body: await uploadForm(later) });
  const body = await res.text();
  assert.equal(res.status, 503, body);
  assert.match(body, /^The blob store cannot be used: S3 \w+ on .* failed: DeadlineExceeded \(no answer within \d+ (ms|s)\)\.\n$/);
  const page = await (await fetch(`${larder.url}/simple/frozen-own/`)).text();
  assert.doesNotMatch(page, new RegExp(later.filename));
});

test('larder migrate keeps the deadline for an S3 target: its reads of a frozen S3 fail within the limit', BOUND, async () => {
  const settings = blobStoreSettings(s3, bucket, 'migrated');
  const targets = await openMigrationTargets({ ...settings, databaseUrl: null, databasePool: 10, s3Deadline: DEADLINE_MS, data: dir });
  try {
    await assert.rejects(targets.blobs!.has(own.sha256), /no answer within 400 ms/);
  } finally {
    await targets.close();
  }
});
