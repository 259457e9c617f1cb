/**
 * What every storage backend must do, as test cases over the storage interfaces only: run them with a
 * factory that opens a backend for a fresh data directory (store-lmdb.test.ts does it for LMDB + files).
 */
import assert from 'node:assert/strict';
import { utimes, writeFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import type { CachedDocument } from '../../../src/store/records.js';
import type { CachedDocumentId } from '../../../src/store/upstream-document-store.js';
import { cachedFileIndexContract } from './cached-file-index-contract.js';
import { indexStoreContract } from './index-store-contract.js';
import { policyStoreContract } from './policy-store-contract.js';
import { type StorageFactory, sha, withStorage } from './storage-fixtures.js';

export type { StorageFactory } from './storage-fixtures.js';

export function storageContract(name: string, open: StorageFactory): void {
  indexStoreContract(name, open);
  policyStoreContract(name, open);
  cachedFileIndexContract(name, open);

  describe(`${name}: upstream document store`, () => {
    const storage = withStorage(open);
    const entry = (value: unknown, fetchedAt = 1): CachedDocument<unknown> => ({ value, fetchedAt, validators: { etag: `"${fetchedAt}"` } });
    const ids: CachedDocumentId[] = [
      { kind: 'page', project: 'foo' },
      { kind: 'page', project: 'foo-bar' },
      { kind: 'releases', project: 'foo' },
      { kind: 'release', project: 'foo', version: '1.0' },
      { kind: 'release', project: 'foo', version: '1.0.post1' },
    ];

    test('each kind of document is kept apart, with its validators; 404s are entries too', async () => {
      const docs = storage().documents;
      await Promise.all(ids.map((id, i) => docs.put(id, entry({ i }, i + 1))));
      await docs.put({ kind: 'page', project: 'gone' }, entry(null));
      for (const [i, id] of ids.entries()) assert.deepEqual(docs.get(id), entry({ i }, i + 1), JSON.stringify(id));
      assert.equal(docs.get({ kind: 'releases', project: 'foo-bar' }), undefined);
      assert.equal(docs.get({ kind: 'release', project: 'foo', version: '2.0' }), undefined);
      assert.deepEqual(docs.get({ kind: 'page', project: 'gone' })!.value, null);
    });

    test('pages and their count are the project pages only; entries are every document but the root list', async () => {
      const docs = storage().documents;
      await docs.putRootList({ fetchedAt: 5, validators: {}, serial: 7, count: 2 });
      assert.deepEqual([...docs.pages()].map((p) => p.project).sort(), ['foo', 'foo-bar', 'gone']);
      assert.equal(docs.pageCount(), 3);
      const all = [...docs.entries()].map((e) => JSON.stringify(e.id)).sort();
      assert.deepEqual(all, [...ids, { kind: 'page', project: 'gone' }].map((id) => JSON.stringify(id)).sort());
    });

    test('the root list state; deleting documents', async () => {
      const docs = storage().documents;
      assert.deepEqual(docs.getRootList(), { fetchedAt: 5, validators: {}, serial: 7, count: 2 });
      await docs.deleteRootList();
      assert.equal(docs.getRootList(), undefined);
      await docs.delete({ kind: 'release', project: 'foo', version: '1.0' });
      assert.equal(docs.get({ kind: 'release', project: 'foo', version: '1.0' }), undefined);
      assert.ok(docs.get({ kind: 'release', project: 'foo', version: '1.0.post1' }));
      assert.equal(docs.pageCount(), 3);
    });
  });

  describe(`${name}: blob store`, () => {
    const storage = withStorage(open);

    test('a committed blob is there whole; a second commit of the same bytes keeps one', async () => {
      const blobs = storage().blobs;
      const bytes = 'some file content';
      assert.equal(await blobs.has(sha(bytes)), false);
      await blobs.writeBuffer(Buffer.from(bytes), sha(bytes));
      const tmp = blobs.tmpPath('test');
      await writeFile(tmp, bytes);
      await blobs.commit(tmp, sha(bytes));
      assert.equal(await blobs.has(sha(bytes)), true);
      assert.equal(blobs.hasSync(sha(bytes)), true);
      assert.equal(await blobs.size(sha(bytes)), bytes.length);
      assert.equal(await text(await blobs.read(sha(bytes))), bytes);
      assert.equal(await text(await blobs.read(sha(bytes), { start: 5, end: 8 })), 'file');
      const listed = [];
      for await (const blob of blobs.list()) listed.push(blob);
      assert.deepEqual(listed, [{ sha256: sha(bytes), size: bytes.length }]);
      assert.equal(typeof (await blobs.modifiedAt(sha(bytes))), 'number');
      await blobs.remove(sha(bytes));
      assert.equal(await blobs.has(sha(bytes)), false);
      assert.equal(await blobs.size(sha(bytes)), null);
      assert.equal(await blobs.modifiedAt(sha(bytes)), null);
    });

    test('purging temporary files: all of them, or those older than a time', async () => {
      const blobs = storage().blobs;
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
