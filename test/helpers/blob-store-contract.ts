/**
 * What every BlobStore must do, as test cases over the interface, with the bytes checked where the backend
 * keeps them (files on disk, objects in the bucket), not only through the store's own reads. Run it with a
 * factory that opens a store for a fresh data directory (store-lmdb.test.ts: filesystem; blob-store-s3.test.ts: S3).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { buffer, text } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import type { BlobStore } from '../../src/store/blob-store.js';
import { withOpened } from './storage-fixtures.js';

export interface OpenedBlobStore {
  blobs: BlobStore;
  /** Every blob as the backend holds it: sha256 → the stored bytes. */
  stored(): Promise<Map<string, Buffer>>;
  /** Makes the blob look old to the store (its modification time before the store's clock). */
  age(sha256: string): Promise<void>;
  close(): Promise<void>;
}

export type BlobStoreFactory = (dataDir: string) => Promise<OpenedBlobStore>;

const sha = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

async function commitBytes(blobs: BlobStore, bytes: string | Buffer): Promise<string> {
  const tmp = blobs.tmpPath('test');
  await writeFile(tmp, bytes);
  await blobs.commit(tmp, sha(bytes));
  await assert.rejects(stat(tmp), 'the temporary file is gone after the commit');
  return sha(bytes);
}

export function blobStoreContract(name: string, open: BlobStoreFactory): void {
  describe(`${name}: blob store`, () => {
    const store = withOpened('larder-blobs-', open);

    test('a committed blob is stored whole and reads back, whole or a range', async () => {
      const { blobs, stored } = store();
      const bytes = 'some file content';
      assert.equal(await blobs.has(sha(bytes)), false);
      assert.equal(blobs.hasSync(sha(bytes)), false);
      await commitBytes(blobs, bytes);
      assert.equal(await blobs.has(sha(bytes)), true);
      assert.equal(blobs.hasSync(sha(bytes)), true);
      assert.equal(await blobs.size(sha(bytes)), bytes.length);
      assert.equal(await text(await blobs.read(sha(bytes))), bytes);
      assert.equal(await text(await blobs.read(sha(bytes), { start: 5, end: 8 })), 'file');
      assert.equal(await text(await blobs.read(sha(bytes), { start: 16, end: 16 })), 't');
      const kept = await stored();
      assert.deepEqual([...kept.keys()], [sha(bytes)]);
      assert.equal(sha(kept.get(sha(bytes))!), sha(bytes));
      const local = blobs.localPath(sha(bytes));
      if (local !== null) assert.equal(await readFile(local, 'utf8'), bytes);
    });

    test('a larger binary blob keeps every byte', async () => {
      const { blobs, stored } = store();
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const digest = await commitBytes(blobs, bytes);
      assert.equal(sha(await buffer(await blobs.read(digest))), digest);
      assert.equal(sha((await stored()).get(digest)!), digest);
      const slice = await buffer(await blobs.read(digest, { start: 1_000_000, end: 2_000_123 }));
      assert.ok(slice.equals(bytes.subarray(1_000_000, 2_000_124)));
    });

    test('committing existing bytes again keeps one blob and makes it count as new', async () => {
      const { blobs, stored, age } = store();
      const bytes = 'committed twice';
      const digest = await commitBytes(blobs, bytes);
      await age(digest);
      const before = (await blobs.modifiedAt(digest))!;
      await commitBytes(blobs, bytes);
      const after = (await blobs.modifiedAt(digest))!;
      assert.ok(after > before, `modifiedAt moved on: ${before} → ${after}`);
      await age(digest);
      const beforeBuffer = (await blobs.modifiedAt(digest))!;
      await blobs.writeBuffer(Buffer.from(bytes), digest);
      assert.ok((await blobs.modifiedAt(digest))! > beforeBuffer);
      const kept = await stored();
      assert.equal(kept.get(digest)?.toString(), bytes);
      assert.equal([...kept.keys()].filter((k) => k === digest).length, 1);
    });

    test('writeBuffer stores a small buffer as a blob', async () => {
      const { blobs, stored } = store();
      const bytes = Buffer.from('Metadata-Version: 2.1\nName: foo\n');
      await blobs.writeBuffer(bytes, sha(bytes));
      assert.equal(await blobs.has(sha(bytes)), true);
      assert.ok((await stored()).get(sha(bytes))?.equals(bytes));
      assert.ok((await buffer(await blobs.read(sha(bytes)))).equals(bytes));
    });

    test('list gives every blob with its size', async () => {
      const { blobs, stored } = store();
      const listed = new Map<string, number>();
      for await (const blob of blobs.list()) listed.set(blob.sha256, blob.size);
      const kept = await stored();
      assert.deepEqual([...listed.keys()].sort(), [...kept.keys()].sort());
      for (const [digest, bytes] of kept) assert.equal(listed.get(digest), bytes.length);
      assert.ok(listed.size >= 4);
    });

    test('a missing blob: has is false, size and modifiedAt null, read rejects before any byte', async () => {
      const { blobs } = store();
      const missing = sha('never stored');
      assert.equal(await blobs.has(missing), false);
      assert.equal(blobs.hasSync(missing), false);
      assert.equal(await blobs.size(missing), null);
      assert.equal(await blobs.modifiedAt(missing), null);
      await assert.rejects(blobs.read(missing), (err: NodeJS.ErrnoException) => err.code === 'ENOENT');
      await assert.rejects(blobs.read(missing, { start: 0, end: 3 }), (err: NodeJS.ErrnoException) => err.code === 'ENOENT');
    });

    test('remove deletes the blob from the backend and from what the store remembers', async () => {
      const { blobs, stored } = store();
      const digest = await commitBytes(blobs, 'to be removed');
      assert.equal(blobs.hasSync(digest), true);
      await blobs.remove(digest);
      assert.equal(blobs.hasSync(digest), false);
      assert.equal(await blobs.has(digest), false);
      assert.equal(await blobs.size(digest), null);
      assert.equal(await blobs.modifiedAt(digest), null);
      assert.equal((await stored()).has(digest), false);
      await blobs.remove(digest);
    });

    test('a blob name that is not a sha256 is refused', async () => {
      const { blobs } = store();
      assert.throws(() => blobs.hasSync('../../etc/passwd'));
      await assert.rejects(async () => blobs.commit(blobs.tmpPath(), 'A'.repeat(64)));
    });

    test('ping reaches the backend', async () => {
      await store().blobs.ping();
    });

    test('purging temporary files: all of them, or those older than a time', async () => {
      const { blobs } = store();
      const old = blobs.tmpPath('old');
      const young = blobs.tmpPath('young');
      await writeFile(old, 'x');
      await writeFile(young, 'y');
      await utimes(old, new Date(1000), new Date(1000));
      assert.equal(await blobs.purgeTmp(2000), 1);
      assert.equal(await blobs.purgeTmp(), 1);
      assert.equal(await blobs.purgeTmp(), 0);
    });
  });
}
