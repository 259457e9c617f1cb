/** What every backend's trusted-publishing store must do (LMDB and PostgreSQL: test/integration/publisher-store.test.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { publishInput } from './storage-fixtures.js';
import type { IndexStore } from '../../src/store/index-store.js';
import type { MintedTokenRecord, PublisherRecord, PublisherStore } from '../../src/store/publisher-store.js';

export type PublisherStoreFactory = () => Promise<{ store: PublisherStore; index: IndexStore; close(): Promise<void> }>;

const publisher = (id: string, project: string, issuer = 'https://token.actions.githubusercontent.com'): PublisherRecord => ({
  id,
  project,
  issuer,
  claims: { repository: 'acme/widgets', workflow_ref: 'acme/widgets/.github/workflows/release.yml@refs/heads/main' },
  jwks: null,
  createdBy: 'alice',
  createdAt: '2026-06-01T12:00:00.000Z',
});

const minted = (hash: string, expiresAt: number): MintedTokenRecord => ({
  hash,
  id: hash.slice(0, 12),
  projects: ['gadgets', 'widgets'],
  publisher: { ids: ['aaaaaaaaaaaa'], issuer: 'https://gitlab.com', claims: { project_path: 'acme/widgets' } },
  createdAt: '2026-06-01T12:00:00.000Z',
  expiresAt,
});

export function publisherStoreContract(name: string, open: PublisherStoreFactory): void {
  describe(`${name}: publisher store`, () => {
    test('publishers by project and by issuer; removal only of that project', async () => {
      const { store, close } = await open();
      try {
        const pinned = {
          ...publisher('bbbbbbbbbbbb', 'widgets', 'https://gitlab.com'),
          jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k1' }] },
        };
        await store.addPublisher(publisher('aaaaaaaaaaaa', 'widgets'));
        await store.addPublisher(pinned);
        await store.addPublisher(publisher('cccccccccccc', 'gadgets'));
        assert.deepEqual(
          (await store.publishers()).map((p) => `${p.project}/${p.id}`),
          ['gadgets/cccccccccccc', 'widgets/aaaaaaaaaaaa', 'widgets/bbbbbbbbbbbb'],
        );
        assert.deepEqual(await store.publishers('widgets'), [publisher('aaaaaaaaaaaa', 'widgets'), pinned]);
        assert.deepEqual(await store.publishers('widget'), []);
        assert.deepEqual(
          (await store.publishersOf('https://token.actions.githubusercontent.com')).map((p) => p.id),
          ['cccccccccccc', 'aaaaaaaaaaaa'],
        );
        assert.equal(await store.removePublisher('gadgets', 'aaaaaaaaaaaa'), false);
        assert.equal(await store.removePublisher('widgets', 'aaaaaaaaaaaa'), true);
        assert.equal(await store.removePublisher('widgets', 'aaaaaaaaaaaa'), false);
        assert.deepEqual(
          (await store.publishers('widgets')).map((p) => p.id),
          ['bbbbbbbbbbbb'],
        );
      } finally {
        await close();
      }
    });

    test('a jti is used once until it expires, per issuer; concurrent uses: one wins', async () => {
      const { store, close } = await open();
      try {
        assert.equal(await store.useJti('https://a', 'j1', 2_000, 1_000), true);
        assert.equal(await store.useJti('https://a', 'j1', 2_000, 1_500), false);
        assert.equal(await store.useJti('https://b', 'j1', 2_000, 1_500), true);
        const racing = await Promise.all([1, 2, 3, 4].map(() => store.useJti('https://a', 'j2', 9_000, 1_500)));
        assert.deepEqual(racing.filter(Boolean).length, 1);
        // Past its expiry the record is forgotten (pruned by the next use).
        assert.equal(await store.useJti('https://a', 'j1', 5_000, 2_000), true);
      } finally {
        await close();
      }
    });

    test('minted tokens by hash; those expired before the horizon are pruned', async () => {
      const { store, close } = await open();
      try {
        await store.putMintedToken(minted('1'.repeat(64), 1_000), 0);
        assert.deepEqual(await store.getMintedToken('1'.repeat(64)), minted('1'.repeat(64), 1_000));
        assert.equal(await store.getMintedToken('2'.repeat(64)), undefined);
        await store.putMintedToken(minted('2'.repeat(64), 5_000), 999);
        assert.ok(await store.getMintedToken('1'.repeat(64)), 'not expired by the horizon: kept');
        await store.putMintedToken(minted('3'.repeat(64), 9_000), 1_000);
        assert.equal(await store.getMintedToken('1'.repeat(64)), undefined);
        assert.ok(await store.getMintedToken('2'.repeat(64)));
      } finally {
        await close();
      }
    });

    test('a file uploaded by a trusted publisher keeps the stamp in the index', async () => {
      const { index, close } = await open();
      try {
        const input = publishInput('demo-1.0-py3-none-any.whl', '1.0');
        const stamp = { ids: ['aaaaaaaaaaaa'], issuer: 'https://token.actions.githubusercontent.com', claims: { repository: 'acme/demo' } };
        assert.equal((await index.publishFile({ ...input, file: { ...input.file, publisher: stamp } })).outcome, 'created');
        assert.deepEqual((await index.getFile('demo', 'demo-1.0-py3-none-any.whl'))?.publisher, stamp);
        await index.publishFile(publishInput('demo-1.1-py3-none-any.whl', '1.1', 'c'.repeat(64)));
        assert.equal((await index.getFile('demo', 'demo-1.1-py3-none-any.whl'))?.publisher, undefined);
      } finally {
        await close();
      }
    });
  });
}
