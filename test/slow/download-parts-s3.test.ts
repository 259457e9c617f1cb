/**
 * The parts of downloads in flight in a real S3-protocol server (s3-download-parts.ts): listed by offset
 * from a given one, read by range, replaced at the same offset, announced, removed together, and never taken for
 * blobs nor spared by the purge of abandoned temporary objects.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { S3BlobStore } from '../../src/store/s3/s3-blob-store.js';
import { startRealS3, type TestS3Server } from '../helpers/s3-server.js';

const SHA = 'ab'.repeat(32);

describe('download parts in S3', () => {
  let s3: TestS3Server;
  let dir: string;
  let store: S3BlobStore;

  before(async () => {
    [s3, dir] = await Promise.all([startRealS3(), mkdtemp(join(tmpdir(), 'larder-parts-'))]);
    store = new S3BlobStore({
      location: `s3://${await s3.createBucket()}/pfx`,
      endpoint: s3.endpoint,
      region: s3.credentials.region,
      credentials: { accessKeyId: s3.credentials.accessKeyId, secretAccessKey: s3.credentials.secretAccessKey },
      dataDir: dir,
      redirect: false,
      listPageSize: 2,
    });
  });

  after(async () => {
    store?.close();
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('put, list from an offset (in offset order, past 10 digits), read a range, replace, announce, remove', async () => {
    const parts = store.parts;
    const first = randomBytes(1000);
    const second = randomBytes(500);
    const far = randomBytes(10);
    await parts.put(SHA, 1000, second);
    await parts.put(SHA, 0, first);
    await parts.put(SHA, 12_345_678_901, far);
    assert.deepEqual(await parts.list(SHA), [
      { offset: 0, size: 1000 },
      { offset: 1000, size: 500 },
      { offset: 12_345_678_901, size: 10 },
    ]);
    assert.deepEqual(await parts.list(SHA, 1000), [
      { offset: 1000, size: 500 },
      { offset: 12_345_678_901, size: 10 },
    ]);
    assert.deepEqual(await parts.read(SHA, 0, { start: 10, end: 19 }), first.subarray(10, 20));
    const longer = randomBytes(700);
    await parts.put(SHA, 1000, longer);
    assert.deepEqual(
      (await parts.list(SHA, 1)).map((p) => p.size),
      [700, 10],
      'a part at the same offset replaces the one there',
    );
    assert.deepEqual(await parts.list('cd'.repeat(32)), [], 'another file has no parts');
    const listed: string[] = [];
    for await (const blob of store.list()) listed.push(blob.sha256);
    assert.deepEqual(listed, [], 'parts are not blobs');
    assert.equal(await parts.announced(SHA), false);
    await parts.announce(SHA);
    assert.equal(await parts.announced(SHA), true, 'a follower has announced itself');
    assert.equal((await parts.list(SHA)).length, 3, 'the announcement is not a part');
    await parts.remove(SHA);
    assert.deepEqual(await parts.list(SHA), []);
    assert.equal(await parts.announced(SHA), false, 'the announcement goes with the parts');
    await assert.rejects(parts.read(SHA, 0, { start: 0, end: 1 }));
  });

  test('parts left by a dead node are removed with the other abandoned temporary objects', async () => {
    await store.parts.put(SHA, 0, randomBytes(10));
    assert.equal(await store.purgeTmp(Date.now() - 60_000), 0, 'a young part is spared');
    assert.equal(await store.purgeTmp(Date.now() + 60_000), 1);
    assert.deepEqual(await store.parts.list(SHA), []);
  });
});
