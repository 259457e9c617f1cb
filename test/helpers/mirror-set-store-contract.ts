/** What every backend's mirror set store must do (part of the storage contract, storage-contract.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mirrorFileKey, pinnedFiles } from '../../src/store/mirror-set-store.js';
import { mirrorSetRecord } from './mirror-set-records.js';
import { type StorageFactory, withStorage } from './storage-fixtures.js';

export function mirrorSetStoreContract(name: string, open: StorageFactory): void {
  describe(`${name}: mirror set store`, () => {
    const storage = withStorage(open);
    const set = (setName: string, filenames: string[]) =>
      mirrorSetRecord(
        setName,
        filenames.map((filename) => ({ project: 'demo', filename })),
      );

    test('sets are put, replaced, listed and removed; their files are pinned', async () => {
      const sets = storage().mirrorSets;
      await sets.put(set('site', ['demo-1.0-py3-none-any.whl']));
      await sets.put(set('lab', ['demo-2.0-py3-none-any.whl']));
      assert.deepEqual(await sets.get('site'), set('site', ['demo-1.0-py3-none-any.whl']));
      await sets.put({ ...set('site', ['demo-1.1-py3-none-any.whl']), lastSync: '2026-11-25T13:00:00.000Z', problems: ['x: not on the index'] });
      assert.equal((await sets.get('site'))!.lastSync, '2026-11-25T13:00:00.000Z');
      assert.deepEqual((await sets.get('site'))!.problems, ['x: not on the index']);
      assert.deepEqual((await sets.list()).map((s) => s.name).sort(), ['lab', 'site']);
      assert.deepEqual(
        [...(await pinnedFiles(sets))].sort(),
        [mirrorFileKey('demo', 'demo-1.1-py3-none-any.whl', 'file'), mirrorFileKey('demo', 'demo-2.0-py3-none-any.whl', 'file')].sort(),
      );
      assert.equal(await sets.remove('lab'), true);
      assert.equal(await sets.remove('lab'), false);
      assert.equal(await sets.get('lab'), undefined);
      assert.deepEqual(
        (await sets.list()).map((s) => s.name),
        ['site'],
      );
    });
  });
}
