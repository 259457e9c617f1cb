/** What every backend's advisory store must do (part of the storage contract, storage-contract.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AdvisoryEntry } from '../../src/store/advisory-store.js';
import { type StorageFactory, withStorage } from './storage-fixtures.js';

const entry = (id: string, project: string, versions: string[] = ['1.0']): AdvisoryEntry => ({
  id,
  project,
  summary: `summary of ${id}`,
  aliases: ['CVE-2026-1'],
  modified: '2026-05-01T00:00:00Z',
  severity: id.startsWith('MAL-') ? null : 'high',
  score: id.startsWith('MAL-') ? null : 7.5,
  ranges: [[{ introduced: '0' }, { fixed: '2.0' }]],
  versions,
});

const info = (advisories: number, importedAt: string) => ({ advisories, importedAt, source: 'all.zip', by: 'root' });

export function advisoryStoreContract(name: string, open: StorageFactory): void {
  describe(`${name}: advisory store`, () => {
    const storage = withStorage(open);

    test('an import replaces the whole set and its info, and moves the generation', async () => {
      const advisories = storage().advisories;
      assert.equal(await advisories.info(), undefined);
      assert.deepEqual(await advisories.entries(), []);
      const start = advisories.generation();
      const first = [entry('GHSA-a', 'lib'), entry('GHSA-a', 'lib-extra'), entry('MAL-b', 'evil')];
      await advisories.replaceAll(first, info(2, '2026-06-01T00:00:00.000Z'));
      const afterFirst = advisories.generation();
      assert.notEqual(afterFirst, start);
      const sortKey = (e: AdvisoryEntry) => `${e.project} ${e.id}`;
      assert.deepEqual((await advisories.entries()).map(sortKey).sort(), first.map(sortKey).sort());
      assert.deepEqual(
        (await advisories.entries()).find((e) => e.project === 'lib'),
        first[0],
      );
      assert.deepEqual(await advisories.info(), info(2, '2026-06-01T00:00:00.000Z'));

      const second = [entry('GHSA-c', 'lib', ['3.0'])];
      await advisories.replaceAll(second, info(1, '2026-06-02T00:00:00.000Z'));
      assert.notEqual(advisories.generation(), afterFirst);
      assert.deepEqual(await advisories.entries(), second);
      assert.deepEqual(await advisories.info(), info(1, '2026-06-02T00:00:00.000Z'));
    });

    test('a large set (thousands of advisories) is replaced in one go', async () => {
      const advisories = storage().advisories;
      const many = Array.from({ length: 2500 }, (_, i) => entry(`PYSEC-${i}`, `project-${i % 700}`));
      await advisories.replaceAll(many, info(2500, '2026-06-03T00:00:00.000Z'));
      // Every entry once, none skipped or repeated where a store reads them page by page.
      const ids = (list: { project: string; id: string }[]) => list.map((e) => `${e.project} ${e.id}`).sort();
      assert.deepEqual(ids(await advisories.entries()), ids(many));
      await advisories.replaceAll([], info(0, '2026-06-04T00:00:00.000Z'));
      assert.deepEqual(await advisories.entries(), []);
      assert.equal((await advisories.info())!.advisories, 0);
    });
  });
}
