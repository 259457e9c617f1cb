/**
 * What every storage backend must do, as test cases over the storage interfaces only: run them with a
 * factory that opens a backend for a fresh data directory (store-lmdb.test.ts does it for LMDB + files). The
 * blob stores have their own contract (blob-store-contract.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CachedDocument } from '../../src/store/records.js';
import type { CachedDocumentId } from '../../src/store/upstream-document-store.js';
import { auditStoreContract } from './audit-store-contract.js';
import { cachedFileIndexContract } from './cached-file-index-contract.js';
import { indexStoreContract } from './index-store-contract.js';
import { mirrorSetStoreContract } from './mirror-set-store-contract.js';
import { policyStoreContract } from './policy-store-contract.js';
import { advisoryStoreContract } from './advisory-store-contract.js';
import { type StorageFactory, withStorage } from './storage-fixtures.js';

export type { StorageFactory } from './storage-fixtures.js';

export function storageContract(name: string, open: StorageFactory): void {
  indexStoreContract(name, open);
  policyStoreContract(name, open);
  advisoryStoreContract(name, open);
  cachedFileIndexContract(name, open);
  mirrorSetStoreContract(name, open);
  auditStoreContract(name, open);

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
}
