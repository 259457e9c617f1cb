/**
 * The storage contract's index, policy, cached-file index, mirror set and audit cases against the PostgreSQL
 * stores (a real PostgreSQL, see test/helpers/postgres.ts), composed with the per-node LMDB and
 * filesystem stores as a node runs them.
 */
import { after, before, describe } from 'node:test';
import { openStorage } from '../../src/store/local/open-storage.js';
import { openPostgres } from '../../src/store/postgres/open-postgres.js';
import type { StorageFactory } from '../helpers/storage-fixtures.js';
import { auditStoreContract } from '../helpers/audit-store-contract.js';
import { cachedFileIndexContract } from '../helpers/cached-file-index-contract.js';
import { indexStoreContract } from '../helpers/index-store-contract.js';
import { mirrorSetStoreContract } from '../helpers/mirror-set-store-contract.js';
import { policyStoreContract } from '../helpers/policy-store-contract.js';
import { advisoryStoreContract } from '../helpers/advisory-store-contract.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

describe('PostgreSQL stores', () => {
  let server: TestPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.cleanup());

  const open: StorageFactory = async (dataDir) => {
    const local = openStorage(dataDir);
    const shared = await openPostgres(await server.createDatabase());
    return {
      ...local,
      index: shared.index,
      policy: shared.policy,
      advisories: shared.advisories,
      cachedFiles: shared.cachedFiles,
      mirrorSets: shared.mirrorSets,
      audit: shared.audit,
      async close() {
        await shared.close();
        await local.close();
      },
    };
  };

  indexStoreContract('PostgreSQL', open);
  policyStoreContract('PostgreSQL', open);
  advisoryStoreContract('PostgreSQL', open);
  cachedFileIndexContract('PostgreSQL', open);
  mirrorSetStoreContract('PostgreSQL', open);
  auditStoreContract('PostgreSQL', open);
});
