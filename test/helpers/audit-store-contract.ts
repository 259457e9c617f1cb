/** What every backend's download audit store must do (part of the storage contract, storage-contract.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DownloadRecord } from '../../src/store/audit-store.js';
import { type StorageFactory, withStorage } from './storage-fixtures.js';

const download = (at: number, project: string, version: string, user = 'anonymous'): DownloadRecord => ({
  at,
  client: '192.0.2.7',
  user,
  token: user === 'anonymous' ? null : 'abc123def456',
  project,
  version,
  filename: `${project}-${version}-py3-none-any.whl`,
  sha256: user === 'anonymous' ? null : 'e'.repeat(64),
});

export function auditStoreContract(name: string, open: StorageFactory): void {
  describe(`${name}: audit store`, () => {
    const storage = withStorage(open);

    test('records come back as written, oldest first, from a time on, of one project or all; the same millisecond twice is two records', async () => {
      const audit = storage().audit;
      await audit.append([download(3000, 'demo', '1.0', 'alice'), download(1000, 'demo', '0.9')]);
      await audit.append([download(2000, 'other', '2.0'), download(3000, 'demo', '1.0', 'alice')]);
      await audit.append([]);
      assert.deepEqual(await audit.downloads({ since: 0, limit: 100 }), [
        download(1000, 'demo', '0.9'),
        download(2000, 'other', '2.0'),
        download(3000, 'demo', '1.0', 'alice'),
        download(3000, 'demo', '1.0', 'alice'),
      ]);
      assert.deepEqual(
        (await audit.downloads({ since: 2000, limit: 100 })).map((r) => r.at),
        [2000, 3000, 3000],
      );
      assert.deepEqual(
        (await audit.downloads({ since: 0, project: 'demo', limit: 100 })).map((r) => r.version),
        ['0.9', '1.0', '1.0'],
      );
      assert.deepEqual(await audit.downloads({ since: 1500, project: 'demo', limit: 1 }), [download(3000, 'demo', '1.0', 'alice')]);
      assert.deepEqual(await audit.downloads({ since: 0, project: 'dem', limit: 100 }), []);
    });

    test('pruning removes what is older than the bound, from every read', async () => {
      const audit = storage().audit;
      assert.equal(await audit.prune(2000), 1);
      assert.deepEqual(
        (await audit.downloads({ since: 0, limit: 100 })).map((r) => r.at),
        [2000, 3000, 3000],
      );
      assert.deepEqual(
        (await audit.downloads({ since: 0, project: 'demo', limit: 100 })).map((r) => r.at),
        [3000, 3000],
      );
      assert.equal(await audit.prune(2000), 0);
      assert.equal(await audit.prune(10_000), 3);
      assert.deepEqual(await audit.downloads({ since: 0, project: 'demo', limit: 100 }), []);
    });
  });
}
