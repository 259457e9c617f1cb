/** The storage contract for the embedded backend: LMDB under data/meta, blobs on the filesystem under data/blobs. */
import assert from 'node:assert/strict';
import { readdir, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { FileBlobStore } from '../../src/store/fs/file-blob-store.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import { blobStoreContract } from '../helpers/blob-store-contract.js';
import { storageContract } from '../helpers/storage-contract.js';
import { publishInput } from '../helpers/storage-fixtures.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

storageContract('LMDB + filesystem', openStorage);

blobStoreContract('filesystem', async (dataDir) => {
  const blobs = new FileBlobStore(dataDir);
  return {
    blobs,
    async stored() {
      const files = await readdir(blobs.blobsDir, { recursive: true, withFileTypes: true }).catch(() => []);
      const kept = new Map<string, Buffer>();
      for (const file of files) if (file.isFile()) kept.set(file.name, await readFile(join(file.parentPath, file.name)));
      return kept;
    },
    async age(sha256) {
      const hourAgo = new Date(Date.now() - 3_600_000);
      await utimes(blobs.pathFor(sha256), hourAgo, hourAgo);
    },
    async close() {},
  };
});

describe('LMDB import racing another writer', () => {
  const dir = suiteTempDir('larder-lmdb-import-race-');

  test('an upload committed while an import is staged is kept: the import is staged again over it', async () => {
    const storage = openStorage(dir);
    try {
      const store = storage.index;
      let attempts = 0;
      const seen: (string | undefined)[] = [];
      await store.importRecords(async (target) => {
        attempts++;
        seen.push((await target.getProject('raced'))?.displayName);
        if (attempts === 1) await store.publishFile(publishInput('raced-1.0-py3-none-any.whl', '1.0', 'c'.repeat(64), 'raced'));
        if (!(await target.getProject('raced'))) {
          target.addProject({ name: 'raced', displayName: 'Imported', createdAt: '', serial: 0, owners: ['bob'], maintainers: [] });
        }
        target.addProject({ name: 'other', displayName: 'Other', createdAt: '', serial: 0, owners: ['bob'], maintainers: [] });
      });
      assert.deepEqual(seen, [undefined, 'raced'], 'the second staging saw the upload');
      assert.equal((await store.getProject('raced'))!.displayName, 'raced', 'the upload was not overwritten');
      assert.equal((await store.getFiles('raced')).length, 1);
      assert.ok(await store.getProject('other'));
      const serials = (await store.changesSince(0)).map((c) => c.serial);
      assert.deepEqual(serials, [...new Set(serials)], 'no serial given twice');
    } finally {
      await storage.close();
    }
  });
});
