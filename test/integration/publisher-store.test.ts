/** The trusted-publishing store's contract against LMDB (a data directory) and PostgreSQL (a real one, test/helpers/postgres.ts). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { openStorage } from '../../src/store/local/open-storage.js';
import { openPostgres } from '../../src/store/postgres/open-postgres.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { publisherStoreContract } from '../helpers/publisher-store-contract.js';

publisherStoreContract('LMDB', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-publishers-'));
  const storage = openStorage(dir);
  return {
    store: storage.publishers,
    index: storage.index,
    async close() {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('PostgreSQL', () => {
  let server: TestPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.cleanup());
  publisherStoreContract('PostgreSQL', async () => {
    const shared = await openPostgres(await server.createDatabase());
    return { store: shared.publishers, index: shared.index, close: () => shared.close() };
  });
});
