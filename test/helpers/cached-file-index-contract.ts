/** What every backend's cached-file index must do (part of the storage contract, storage-contract.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type StorageFactory, withStorage } from './storage-fixtures.js';

export function cachedFileIndexContract(name: string, open: StorageFactory): void {
  describe(`${name}: cached-file index`, () => {
    const storage = withStorage(open);
    const record = (sha256: string, size: number) => ({ sha256, size, fetchedAt: 1, lastAccess: 1 });
    const wheel = { project: 'foo', filename: 'foo-1.0-py3-none-any.whl', variant: 'file' };
    const metadata = { ...wheel, variant: 'metadata' };

    test('records per file and variant; touch moves the last access; totals', async () => {
      const files = storage().cachedFiles;
      await files.put(wheel, record('a'.repeat(64), 100));
      await files.put(metadata, record('b'.repeat(64), 5));
      assert.deepEqual(await files.get(wheel), record('a'.repeat(64), 100));
      assert.equal(await files.get({ ...wheel, variant: 'signature' }), undefined);
      await files.touch(wheel, (await files.get(wheel))!, 50);
      assert.equal((await files.get(wheel))!.lastAccess, 50);
      assert.deepEqual(await files.totals(), { bytes: 105, files: 2 });
      assert.deepEqual((await Array.fromAsync(files.entries())).map((e) => e.id.variant).sort(), ['file', 'metadata']);
      await files.delete(wheel);
      assert.equal(await files.get(wheel), undefined);
      assert.deepEqual(await files.totals(), { bytes: 5, files: 1 });
    });

    test('a second put replaces the record and counts once; deleting what is not there changes nothing', async () => {
      const files = storage().cachedFiles;
      const other = { project: 'foo-bar', filename: 'foo_bar-2.0.tar.gz', variant: 'file' };
      await files.put(other, record('c'.repeat(64), 7));
      await files.put(other, { ...record('d'.repeat(64), 9), fetchedAt: 2, lastAccess: 3 });
      assert.deepEqual(await files.get(other), { sha256: 'd'.repeat(64), size: 9, fetchedAt: 2, lastAccess: 3 });
      assert.deepEqual(await files.totals(), { bytes: 14, files: 2 });
      await files.delete({ ...other, filename: 'foo_bar-3.0.tar.gz' });
      assert.deepEqual(await files.totals(), { bytes: 14, files: 2 });
      assert.deepEqual((await Array.fromAsync(files.entries())).map((e) => `${e.id.project} ${e.id.filename} ${e.id.variant}`).sort(), [
        'foo foo-1.0-py3-none-any.whl metadata',
        'foo-bar foo_bar-2.0.tar.gz file',
      ]);
    });

    test('the totals agree with the records after many writes at once', async () => {
      const files = storage().cachedFiles;
      const ids = Array.from({ length: 30 }, (_, i) => ({ project: 'many', filename: `many-${i}-py3-none-any.whl`, variant: 'file' }));
      await Promise.all(ids.map((id, i) => files.put(id, record('e'.repeat(64), i + 1))));
      await Promise.all([
        ...ids.slice(0, 10).map((id) => files.delete(id)),
        ...ids.slice(10, 20).map((id) => files.put(id, record('f'.repeat(64), 1000))),
        ...ids.slice(20).map(async (id) => files.touch(id, (await files.get(id))!, 99)),
      ]);
      const stored = await Array.fromAsync(files.entries());
      assert.equal(stored.filter((e) => e.id.project === 'many').length, 20);
      assert.deepEqual(await files.totals(), { bytes: stored.reduce((sum, e) => sum + e.record.size, 0), files: stored.length });
    });
  });
}
