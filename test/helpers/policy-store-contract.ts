/** What every backend's policy store must do (part of the storage contract, storage-contract.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type StorageFactory, withStorage } from './storage-fixtures.js';

export function policyStoreContract(name: string, open: StorageFactory): void {
  describe(`${name}: policy store`, () => {
    const storage = withStorage(open);
    const exemption = (version: string, reason: string | null = 'hotfix') => ({ project: 'demo', version, reason, by: 'root', at: '2026-01-01T00:00:00.000Z' });

    test('exemptions match by canonical version; each change moves the generation, a no-op does not', async () => {
      const policy = storage().policy;
      const start = policy.generation();
      await policy.putExemption(exemption('1.0'));
      const afterPut = policy.generation();
      assert.notEqual(afterPut, start);
      assert.deepEqual(await policy.getExemption('demo', '1.0.0'), exemption('1.0'));
      assert.equal(await policy.getExemption('demo', '1.1'), undefined);
      assert.equal(await policy.getExemption('other', '1.0'), undefined);
      await policy.putExemption(exemption('2.0', null));
      assert.deepEqual([...(await policy.exemptions())].map((e) => e.version).sort(), ['1.0', '2.0']);
      assert.equal(await policy.deleteExemption('demo', '3.0'), false);
      const beforeDelete = policy.generation();
      assert.equal(await policy.deleteExemption('demo', '1.0.0'), true);
      assert.notEqual(policy.generation(), beforeDelete);
      assert.equal(await policy.getExemption('demo', '1.0'), undefined);
      assert.deepEqual(
        [...(await policy.exemptions())].map((e) => e.version),
        ['2.0'],
      );
    });

    test('collisions per project and upstream; a later sighting replaces the record', async () => {
      const policy = storage().policy;
      const generation = policy.generation();
      const seen = { project: 'demo', upstream: 'pypi', firstSeen: '2026-01-01T00:00:00.000Z', lastSeen: '2026-01-01T00:00:00.000Z' };
      await policy.putCollision(seen);
      await policy.putCollision({ ...seen, upstream: 'mirror' });
      await policy.putCollision({ ...seen, lastSeen: '2026-02-01T00:00:00.000Z' });
      assert.equal((await policy.getCollision('demo', 'pypi'))!.lastSeen, '2026-02-01T00:00:00.000Z');
      assert.equal(await policy.getCollision('demo', 'other'), undefined);
      assert.deepEqual([...(await policy.collisions())].map((c) => c.upstream).sort(), ['mirror', 'pypi']);
      assert.equal(policy.generation(), generation);
    });
  });
}
