/**
 * The S3 blob store against a real S3, Ceph's RADOS Gateway, behind the proxy that checks signatures and
 * cuts requests (test/helpers/s3-server.ts): the blob-store contract, then what only object storage has:
 * multipart uploads of large files in bounded memory and visible only once whole, interrupted uploads,
 * purging, presigned URLs and ranges. Refusals, unreachable stores and a partial object only a fake S3
 * keeps: test/integration/blob-store-s3-refusals.test.ts (s3rver).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { appendFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { fetch as undiciFetch } from 'undici';
import type { S3BlobStore, S3BlobStoreOptions } from '../../src/store/s3/s3-blob-store.js';
import { createS3Client } from '../../src/store/s3/s3-client.js';
import { eventually } from '../helpers/eventually.js';
import { type LoggedRequest, startRealS3, type TestS3Server } from '../helpers/s3-server.js';
import { openS3Store, storedBlobs as storedBlobsOf } from '../helpers/s3-test-stores.js';
import { blobStoreContract } from '../helpers/blob-store-contract.js';

const MiB = 1024 * 1024;
const sha = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Writes `size` random bytes to `path` a MiB at a time; returns their sha256. */
async function writeRandomFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  for (let written = 0; written < size; written += MiB) {
    const chunk = randomBytes(Math.min(MiB, size - written));
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return hash.digest('hex');
}

describe('S3 blob store', () => {
  let s3: TestS3Server;
  before(async () => {
    s3 = await startRealS3();
  });
  after(async () => {
    await s3?.close();
  });

  const openStore = (bucket: string, dataDir: string, options: Partial<S3BlobStoreOptions> = {}) => openS3Store(s3, bucket, dataDir, options);
  const storedBlobs = (store: S3BlobStore, bucket: string) => storedBlobsOf(s3, store, bucket);

  blobStoreContract('S3', async (dataDir) => {
    const bucket = await s3.createBucket();
    let clockAhead = 0;
    // Two keys per listing page, so that listing goes through several pages.
    const blobs = openStore(bucket, dataDir, { clock: { now: () => Date.now() + clockAhead }, listPageSize: 2 });
    return {
      blobs,
      stored: () => storedBlobs(blobs, bucket),
      async age() {
        clockAhead += 3_600_000;
      },
      async close() {
        blobs.close();
      },
    };
  });

  describe('S3 blob store: what object storage adds', () => {
    let dir: string;
    let bucket: string;
    let store: S3BlobStore;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'larder-s3-blobs-'));
      bucket = await s3.createBucket();
      store = openStore(bucket, join(dir, 'data'), { partSize: 8 * MiB, queueSize: 2 });
      await store.init();
    });
    after(async () => {
      store?.close();
      await s3.uncut();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('a file larger than the part size goes up in parts of bounded size, a few at a time, and no reader ever sees it half-written', async () => {
      const size = 64 * MiB + 123;
      const tmp = store.tmpPath('large');
      const digest = await writeRandomFile(tmp, size);
      await s3.takeLog();
      // Another node asks for the blob all along the upload: it must see nothing, then the whole object.
      const other = openStore(bucket, join(dir, 'other'));
      const sightings: (number | null)[] = [];
      let committing = true;
      const watcher = (async () => {
        while (committing) {
          sightings.push(await other.size(digest));
          // Once seen, the size is answered from memory: without a turn of the event loop, this loop would starve the commit.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      try {
        await store.commit(tmp, digest);
      } finally {
        committing = false;
        await watcher;
        other.close();
      }
      assert.ok(
        sightings.every((s) => s === null || s === size),
        `a reader saw sizes ${[...new Set(sightings)].join(', ')}`,
      );
      assert.equal(await other.size(digest), size);
      // What the store holds in memory is bounded by part size × parts in flight (8 MiB × 2), not by the file.
      const parts = (await s3.takeLog()).filter((r) => r.method === 'PUT' && r.target.includes('partNumber='));
      assert.equal(parts.length, 9, 'nine parts');
      assert.ok(parts.every((r) => r.bytes <= 8 * MiB));
      assert.ok(Math.max(...parts.map((r) => r.concurrent)) <= 2 + 1, 'at most two parts in flight (and the reader’s HEAD)');
      const stored = (await storedBlobs(store, bucket)).get(digest);
      assert.equal(stored?.length, size);
      assert.equal(sha(stored!), digest);
      assert.equal(sha(await buffer(await store.read(digest))), digest);
      await assert.rejects(stat(tmp));
    });

    test('committing a blob that is already there uploads nothing', async () => {
      const bytes = randomBytes(1000);
      const first = store.tmpPath();
      await writeFile(first, bytes);
      await store.commit(first, sha(bytes));
      await s3.takeLog();
      const second = store.tmpPath();
      await writeFile(second, bytes);
      await store.commit(second, sha(bytes));
      const log = await s3.takeLog();
      assert.deepEqual(
        log.map((r) => r.method),
        ['HEAD', 'PUT'],
        `one HEAD and one copy onto itself: ${log.map((r) => `${r.method} ${r.target}`).join('; ')}`,
      );
      assert.ok(!log.some((r) => r.target.includes('/tmp/')));
    });

    test('an upload cut part-way leaves nothing at the final key and no unfinished upload', async () => {
      const tmp = store.tmpPath('cut');
      const digest = await writeRandomFile(tmp, 20 * MiB);
      await s3.cut('PUT', 'partNumber=2', 1_000_000);
      try {
        await assert.rejects(store.commit(tmp, digest), /S3 upload on s3:\/\/.+ failed/);
      } finally {
        await s3.uncut();
      }
      assert.equal(await store.has(digest), false);
      assert.equal(store.hasSync(digest), false);
      assert.equal((await storedBlobs(store, bucket)).has(digest), false);
      assert.deepEqual(await s3.pendingUploads(bucket), [], 'the multipart upload was aborted');
      assert.equal((await stat(tmp)).size, 20 * MiB, 'the temporary file stays for a retry or the purge');
      await rm(tmp);
    });

    test('purgeTmp aborts unfinished multipart uploads under the prefix once they are old enough', async () => {
      const client = createS3Client({ endpoint: s3.endpoint, region: s3.credentials.region, credentials: s3.credentials });
      try {
        const key = store.keys.blob(sha('abandoned'));
        const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
        await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: randomBytes(1000) }));
        assert.deepEqual(await s3.pendingUploads(bucket), [key]);
        assert.equal(await store.purgeTmp(), 0);
        assert.deepEqual(await s3.pendingUploads(bucket), [key]);
        assert.equal(await store.purgeTmp(Date.now() + 60_000), 1);
        assert.deepEqual(await s3.pendingUploads(bucket), []);
      } finally {
        client.destroy();
      }
    });

    test('a presigned URL serves the bytes with the filename, passes ranges through, and is refused once tampered with', async () => {
      const bytes = randomBytes(100_000);
      await store.writeBuffer(bytes, sha(bytes));
      const url = await store.directUrl(sha(bytes), { filename: 'demo-1.0-py3-none-any.whl', contentType: 'application/zip' });
      assert.ok(url);
      const res = await undiciFetch(url);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-disposition') ?? '', /filename="demo-1\.0-py3-none-any\.whl"/);
      assert.equal(res.headers.get('content-type'), 'application/zip');
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
      const partial = await undiciFetch(url, { headers: { range: 'bytes=1000-1999' } });
      assert.equal(partial.status, 206);
      assert.ok(Buffer.from(await partial.arrayBuffer()).equals(bytes.subarray(1000, 2000)));
      const tampered = await undiciFetch(url.replace('demo-1.0', 'evil-1.0'));
      assert.equal(tampered.status, 403);
      assert.match(await tampered.text(), /SignatureDoesNotMatch/);
      const unsigned = await undiciFetch(url.slice(0, url.indexOf('?')));
      assert.equal(unsigned.status, 403);
      const noRedirect = openStore(bucket, join(dir, 'plain'), { redirect: false });
      assert.equal(await noRedirect.directUrl(sha(bytes), { filename: 'x.whl', contentType: 'application/zip' }), null);
      noRedirect.close();
    });

    test('a commit begun while the file is written sends its parts as they are written, and shows the blob only when finished', async () => {
      const bytes = randomBytes(20 * MiB + 5);
      const digest = sha(bytes);
      const tmp = store.tmpPath('growing');
      await writeFile(tmp, bytes.subarray(0, 17 * MiB));
      await s3.takeLog();
      const growing = store.beginCommit(tmp, digest)!;
      growing.grew(17 * MiB);
      const log: LoggedRequest[] = [];
      const partsSent = () => log.filter((r) => r.method === 'PUT' && r.target.includes('partNumber=')).length;
      await eventually(async () => {
        log.push(...(await s3.takeLog()));
        return partsSent() === 2;
      }, 'the two whole parts go before the file is finished');
      assert.equal(await store.has(digest), false, 'nothing is visible before the file is verified');
      await appendFile(tmp, bytes.subarray(17 * MiB));
      await growing.finish(bytes.length);
      log.push(...(await s3.takeLog()));
      assert.equal(partsSent(), 3, 'only the rest goes at the end');
      const stored = await storedBlobsOf(s3, store, bucket);
      assert.equal(sha(stored.get(digest)!), digest);
      assert.deepEqual(await s3.pendingUploads(bucket), []);
      assert.equal(await store.size(digest), bytes.length);
    });

    test('an abandoned growing commit leaves nothing; a file of one part goes the ordinary way when finished', async () => {
      const bytes = randomBytes(9 * MiB);
      const tmp = store.tmpPath('abandoned');
      await writeFile(tmp, bytes);
      const growing = store.beginCommit(tmp, sha(bytes))!;
      growing.grew(bytes.length);
      await eventually(async () => (await s3.pendingUploads(bucket)).length === 1, 'a part is on its way');
      growing.abandon();
      await eventually(async () => (await s3.pendingUploads(bucket)).length === 0, 'the multipart upload is aborted');
      assert.equal(await store.has(sha(bytes)), false);

      const small = randomBytes(1000);
      const smallTmp = store.tmpPath('small');
      await writeFile(smallTmp, small);
      const one = store.beginCommit(smallTmp, sha(small))!;
      one.grew(small.length);
      await one.finish(small.length);
      assert.equal(sha((await storedBlobsOf(s3, store, bucket)).get(sha(small))!), sha(small));
      assert.equal(store.beginCommit(smallTmp, sha(small)), null, 'a blob known to be there needs no second upload');
    });

    test('a store that knows a blob from another node answers hasSync only once it has seen it, and for a while', async () => {
      const bytes = randomBytes(500);
      await store.writeBuffer(bytes, sha(bytes));
      let monotonic = 0;
      const other = openStore(bucket, join(dir, 'other'), { monotonicMs: () => monotonic });
      try {
        assert.equal(other.hasSync(sha(bytes)), false);
        assert.equal(await other.has(sha(bytes)), true);
        assert.equal(other.hasSync(sha(bytes)), true);
        // A node's garbage collection may remove it meanwhile: the sighting is trusted for ten minutes.
        monotonic += 10 * 60_000 - 1;
        assert.equal(other.hasSync(sha(bytes)), true);
        monotonic += 1;
        assert.equal(other.hasSync(sha(bytes)), false);
        await buffer(await other.read(sha(bytes)));
        assert.equal(other.hasSync(sha(bytes)), true, 'a read is a sighting too');
      } finally {
        other.close();
      }
    });

    test('the size of a blob seen lately is answered without asking the bucket again', async () => {
      const bytes = randomBytes(700);
      await store.writeBuffer(bytes, sha(bytes));
      let monotonic = 0;
      const other = openStore(bucket, join(dir, 'sizes'), { monotonicMs: () => monotonic });
      try {
        await s3.takeLog();
        assert.equal(await other.size(sha(bytes)), 700);
        assert.equal(await other.size(sha(bytes)), 700);
        assert.equal(await store.size(sha(bytes)), 700, 'the committing store knows it too');
        assert.equal((await s3.takeLog()).filter((r) => r.method === 'HEAD').length, 1, 'one HEAD for three answers');
        monotonic += 10 * 60_000;
        assert.equal(await other.size(sha(bytes)), 700);
        assert.equal((await s3.takeLog()).filter((r) => r.method === 'HEAD').length, 1, 'asked again after ten minutes');
        await other.remove(sha(bytes));
        assert.equal(await other.size(sha(bytes)), null, 'a removed blob is forgotten');
      } finally {
        other.close();
      }
    });

    test('every S3 round trip is reported with its duration; a missing blob is no failure', async () => {
      const seen: [string, boolean][] = [];
      const observed = openStore(bucket, join(dir, 'observed'), {
        observe: (operation, ms, ok) => {
          assert.ok(ms >= 0);
          seen.push([operation, ok]);
        },
      });
      try {
        await observed.has(sha('nothing'));
        await observed.ping();
        await assert.rejects(observed.read(sha('nothing')));
        assert.deepEqual(seen, [
          ['head', true],
          ['ping', true],
          ['get', false],
        ]);
      } finally {
        observed.close();
      }
    });
  });
});
