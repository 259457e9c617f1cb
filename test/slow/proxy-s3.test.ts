/**
 * larder proxying upstream files into an S3 bucket (docs/scale-out.md): a large file's multipart upload
 * begins while it is still being downloaded and is completed only once the file is verified, so a file
 * that fails verification leaves nothing in the bucket; and a bucket that fails writes: the client still
 * gets the verified file, nothing is kept, and the failure is counted and logged as a failed store write,
 * not as a full disk (docs/storage.md). Once the bucket takes writes again, the next request keeps the file.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { eventually } from '../helpers/eventually.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { blobStoreSettings, exportTestCredentials, startRealS3, type TestS3Server } from '../helpers/s3-server.js';

let dir: string;
let upstream: FakeUpstream;
let s3: TestS3Server;
let larder: TestLarder;
let bucket: string;
let wheel: BuiltDist;
let big: BuiltDist;
let bad: BuiltDist;
const sha256 = (bytes: ArrayBuffer) => createHash('sha256').update(Buffer.from(bytes)).digest('hex');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-s3-faults-'));
  wheel = await buildWheel(join(dir, 'w'), { name: 'bucket-fault', version: '1.0', dataFile: { bytes: 200_000 } });
  upstream = await startFakeUpstream();
  big = await buildWheel(join(dir, 'big'), { name: 'bucket-big', version: '1.0', dataFile: { bytes: 20 * 1024 * 1024 } });
  bad = await buildWheel(join(dir, 'bad'), { name: 'bucket-bad', version: '1.0', dataFile: { bytes: 20 * 1024 * 1024 } });
  upstream.addProject('bucket-fault', [wheel]);
  upstream.addProject('bucket-big', [big]);
  upstream.addProject('bucket-bad', [bad]);
  s3 = await startRealS3();
  bucket = await s3.createBucket();
  exportTestCredentials();
  larder = await startLarder({ upstream: upstream.url, ...blobStoreSettings(s3, bucket) });
});

after(async () => {
  await larder?.close();
  await s3?.uncut();
  await Promise.all([upstream?.close(), s3?.close()]);
  await rm(dir, { recursive: true, force: true });
});

/** The key of the object holding the blob `sha`, if the bucket has it. */
const objectsOf = async (sha: string) => [...(await s3.objects(bucket)).keys()].find((key) => key.endsWith(sha));

const metric = async (name: string) => {
  const text = await (await fetch(`${larder.url}/metrics`)).text();
  return new RegExp(`^${name}(\\{[^}]*\\})? (\\d+)$`, 'm').exec(text)?.[2] ?? '0';
};

test('a large file goes to the bucket while it downloads, and appears there only once verified', async () => {
  const url = `${larder.url}/packages/bucket-big/${big.filename}`;
  await upstream.setFault({ kind: 'slow', bytesPerSecond: 8 * 1024 * 1024, pathPrefix: '/files/', count: 1 });
  const response = await fetch(url);
  assert.equal(response.status, 200);
  let received = 0;
  const body = (async () => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of response.body!) {
      chunks.push(chunk);
      received += chunk.byteLength;
    }
    return Buffer.concat(chunks);
  })();
  let receivedWhenSeen = -1;
  await eventually(
    async () => {
      const seen = (await s3.pendingUploads(bucket)).length === 1;
      if (seen) receivedWhenSeen = received;
      return seen;
    },
    'a multipart upload is under way during the download',
    10_000,
  );
  assert.ok(receivedWhenSeen < big.size * 0.75, `the upload began after the client had ${receivedWhenSeen} of ${big.size} bytes`);
  assert.ok(!(await objectsOf(big.sha256)), 'nothing visible before the file is verified');
  assert.equal(
    createHash('sha256')
      .update(await body)
      .digest('hex'),
    big.sha256,
  );
  const stored = (await s3.objects(bucket)).get((await objectsOf(big.sha256))!);
  assert.equal(createHash('sha256').update(stored!).digest('hex'), big.sha256, 'the object is whole');
  assert.deepEqual(await s3.pendingUploads(bucket), []);
});

test('a large file that fails verification leaves nothing in the bucket', async () => {
  await upstream.setFault({ kind: 'wrongHash', pathPrefix: '/files/', count: 1 });
  const response = await fetch(`${larder.url}/packages/bucket-bad/${bad.filename}`);
  await assert.rejects(response.arrayBuffer(), 'the client never gets a complete file that failed verification');
  await eventually(async () => (await s3.pendingUploads(bucket)).length === 0, 'the multipart upload is aborted', 10_000);
  assert.equal(await objectsOf(bad.sha256), undefined);
});

test('a bucket that fails the write: the file is delivered, not kept, and counted as a failed store write', async () => {
  const url = `${larder.url}/packages/bucket-fault/${wheel.filename}`;
  // Every PUT of a temporary object (where a blob of one part goes first) is cut off.
  await s3.cut('PUT', '/tmp/', 0);
  const first = await fetch(url);
  assert.equal(first.status, 200);
  assert.equal(sha256(await first.arrayBuffer()), wheel.sha256, 'the client gets the verified file');
  await eventually(async () => (await metric('larder_store_failures_total')) !== '0', 'the failed write is counted', 10_000);
  assert.equal(await metric('larder_disk_full_total'), '0', 'a failing bucket is not a full disk');
  const objects = [...(await s3.objects(bucket)).keys()];
  assert.ok(!objects.some((key) => key.endsWith(wheel.sha256)), `nothing is kept: ${objects.join(', ')}`);

  await s3.uncut();
  const second = await fetch(url);
  assert.equal(sha256(await second.arrayBuffer()), wheel.sha256);
  await eventually(async () => (await fetch(url, { method: 'HEAD' })).headers.get('x-larder-cache') === 'hit', 'kept once the bucket takes writes', 10_000);
  const stored = await s3.objects(bucket);
  const key = [...stored.keys()].find((k) => k.endsWith(wheel.sha256));
  assert.ok(key, 'the blob is in the bucket');
  assert.equal(createHash('sha256').update(stored.get(key)!).digest('hex'), wheel.sha256);
});
