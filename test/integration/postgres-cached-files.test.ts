/**
 * The records of cached upstream files shared by several nodes on one PostgreSQL database and one blob
 * store: a record put or deleted on one node is read by the others at once (reads are queries), touches
 * are batched and lose nothing, listings page through the table, and garbage collection, purges and
 * evictions on one node never leave another node's record pointing at a missing blob. Also: the
 * database down and back.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { collectGarbage, purgeCache } from '../../src/cache/cache-maintenance.js';
import { CacheBudget } from '../../src/cache/cache-budget.js';
import { BackendUnavailable } from '../../src/store/backend-unavailable.js';
import type { BlobStore } from '../../src/store/blob-store.js';
import { FileBlobStore } from '../../src/store/fs/file-blob-store.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import { type OpenPostgresOptions, openPostgres, type PostgresBackends } from '../../src/store/postgres/open-postgres.js';
import type { Storage } from '../../src/store/storage.js';
import { eventually } from '../helpers/eventually.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { mirrorSetRecord } from '../helpers/mirror-set-records.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { sha } from '../helpers/storage-fixtures.js';

const record = (sha256: string, size: number, lastAccess = 1) => ({ sha256, size, fetchedAt: 1, lastAccess });
const id = (project: string, filename: string, variant = 'file') => ({ project, filename, variant });
const lastAccessInDatabase = async (on: PostgresBackends, project: string) =>
  (await on.database.pool.query('SELECT last_access FROM cached_files WHERE project = $1', [project])).rows.map((row) => Number(row.last_access));

describe('cached-file records shared by several nodes on one PostgreSQL', () => {
  let server: TestPostgres;
  let url: string;
  let dir: string;
  const opened: { close(): Promise<void> }[] = [];
  const node = async (options: OpenPostgresOptions = {}) => {
    const backends = await openPostgres(url, { connectTimeoutMs: 1000, ...options });
    opened.push(backends);
    return backends;
  };
  /** A node's storage as open-backends.ts composes it: its own LMDB, the shared records and one blob store. */
  const storageOf = (shared: PostgresBackends, name: string, blobs: BlobStore): Storage => {
    const local = openStorage(join(dir, name));
    opened.push(local);
    return { ...local, index: shared.index, policy: shared.policy, cachedFiles: shared.cachedFiles, mirrorSets: shared.mirrorSets, blobs };
  };
  /** Nodes A and B as they run, on a blob store of their own for one test. */
  const bothNodes = async (name: string) => {
    const blobs = new FileBlobStore(join(dir, `shared-${name}`));
    await blobs.init();
    return { blobs, onA: storageOf(a, `node-a-${name}`, blobs), onB: storageOf(b, `node-b-${name}`, blobs) };
  };
  let a: PostgresBackends;
  let b: PostgresBackends;

  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    dir = await mkdtemp(join(tmpdir(), 'larder-pg-cached-'));
    a = await node({ touchFlushMs: 60_000 });
    b = await node({ touchFlushMs: 60_000 });
  });
  after(async () => {
    for (const each of opened.reverse()) await each.close().catch(() => {});
    await server?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('a put on A is read by B at once; a delete on A too; the totals agree', async () => {
    const wheel = id('shared', 'shared-1.0-py3-none-any.whl');
    const metadata = { ...wheel, variant: 'metadata' };
    await a.cachedFiles.put(wheel, record('a'.repeat(64), 100));
    await a.cachedFiles.put(metadata, record('b'.repeat(64), 5));
    assert.deepEqual(await b.cachedFiles.get(wheel), record('a'.repeat(64), 100));
    assert.deepEqual(await b.cachedFiles.get(metadata), record('b'.repeat(64), 5));
    assert.deepEqual(await a.cachedFiles.totals(), { bytes: 105, files: 2 });
    await a.cachedFiles.delete(wheel);
    assert.equal(await b.cachedFiles.get(wheel), undefined);
    assert.deepEqual(await b.cachedFiles.totals(), { bytes: 5, files: 1 });
    await b.cachedFiles.delete(metadata);
    assert.deepEqual(await a.cachedFiles.totals(), { bytes: 0, files: 0 });
  });

  test('touches are written together, later, never back in time; the touching node reads them at once', async () => {
    const wheel = id('touched', 'touched-1.0-py3-none-any.whl');
    const sdist = id('touched', 'touched-1.0.tar.gz');
    await b.cachedFiles.put(wheel, record('c'.repeat(64), 10, 1000));
    await b.cachedFiles.put(sdist, record('d'.repeat(64), 20, 1000));
    const writes: string[] = [];
    const counted = await node({ touchFlushMs: 60_000, observe: (operation) => writes.push(operation) });
    writes.length = 0;
    for (let at = 2000; at <= 5000; at += 1000) {
      await counted.cachedFiles.touch(wheel, record('c'.repeat(64), 10, 1000), at);
      await counted.cachedFiles.touch(sdist, record('d'.repeat(64), 20, 1000), at);
    }
    assert.deepEqual(writes, [], 'no write per touch');
    assert.equal((await counted.cachedFiles.get(wheel))!.lastAccess, 5000, "the touching node's reads see its touches");
    assert.deepEqual(
      (await Array.fromAsync(counted.cachedFiles.entries())).filter((e) => e.id.project === 'touched').map((e) => e.record.lastAccess),
      [5000, 5000],
    );
    assert.deepEqual(await lastAccessInDatabase(a, 'touched'), [1000, 1000], 'not written yet');
    await a.cachedFiles.touch(wheel, record('c'.repeat(64), 10, 1000), 3000);
    await a.cachedFiles.flushTouches();
    await counted.cachedFiles.flushTouches();
    assert.deepEqual(
      writes.filter((w) => w === 'cached-file-touch'),
      ['cached-file-touch'],
      'one statement for every touch kept',
    );
    assert.deepEqual((await lastAccessInDatabase(a, 'touched')).sort(), [5000, 5000], "A's earlier touch did not move it back");
    assert.equal((await b.cachedFiles.get(wheel))!.lastAccess, 5000, 'other nodes read it once written');
    await counted.cachedFiles.touch(sdist, record('d'.repeat(64), 20, 1000), 7000);
    await counted.close();
    assert.deepEqual((await lastAccessInDatabase(a, 'touched')).sort(), [5000, 7000], 'closing writes what was kept');
  });

  test('entries page through the table in key order, a page per query', async () => {
    const ids = Array.from({ length: 1234 }, (_, i) => id('paged', `paged-${String(i).padStart(4, '0')}.tar.gz`));
    await a.database.pool.query(
      'INSERT INTO cached_files (project, filename, variant, sha256, size, fetched_at, last_access) SELECT $1, unnest($2::text[]), $3, $4, 1, 1, 1',
      ['paged', ids.map((i) => i.filename), 'file', 'f'.repeat(64)],
    );
    const reads: string[] = [];
    const counted = await node({ observe: (operation) => reads.push(operation) });
    reads.length = 0;
    const listed = (await Array.fromAsync(counted.cachedFiles.entries())).filter((e) => e.id.project === 'paged').map((e) => e.id.filename);
    assert.deepEqual(
      listed,
      ids.map((i) => i.filename),
    );
    assert.deepEqual(reads, Array(3).fill('list-cached_files'), 'three pages of 500');
    await a.database.pool.query("DELETE FROM cached_files WHERE project = 'paged'");
  });

  test("gc, purge and eviction on A spare the blobs of B's records, and take B's records with the blobs they remove", async () => {
    const { blobs, onA, onB } = await bothNodes('gc');
    const bytes = (s: string) => Buffer.from(s);
    const kept = id('gc', 'gc-1.0.tar.gz');
    await blobs.writeBuffer(bytes('recorded by B only'), sha('recorded by B only'));
    await onB.cachedFiles.put(kept, record(sha('recorded by B only'), 18));
    const later = new ManualClock(Date.now() + 2 * 60 * 60_000);
    const collected = await collectGarbage(onA, later);
    assert.equal(collected.blobs, 0);
    assert.equal(await blobs.has(sha('recorded by B only')), true, "A's gc keeps the blob B recorded");

    const purged = await purgeCache(onA, ['gc']);
    assert.equal(purged.files, 1);
    assert.equal(await blobs.has(sha('recorded by B only')), false);
    assert.equal(await onB.cachedFiles.get(kept), undefined, 'B reads no record of the purged blob');

    const old = id('evict', 'evict-1.0.tar.gz');
    const fresh = id('evict', 'evict-2.0.tar.gz');
    await blobs.writeBuffer(bytes('old file'), sha('old file'));
    await onB.cachedFiles.put(old, record(sha('old file'), 100, 1));
    await blobs.writeBuffer(bytes('new file'), sha('new file'));
    await onA.cachedFiles.put(fresh, record(sha('new file'), 100, 2));
    const budget = new CacheBudget(onA, 150, pino({ level: 'silent' }));
    await budget.added(fresh);
    assert.equal(await blobs.has(sha('old file')), false, "A evicted B's least recently used file");
    assert.equal(await onB.cachedFiles.get(old), undefined, 'B reads no record of the evicted file');
    assert.ok(await onB.cachedFiles.get(fresh));
  });

  test("A's cache budget counts what B records: the shared total, not A's own additions", async () => {
    const { blobs, onA, onB } = await bothNodes('budget');
    const base = (await onA.cachedFiles.totals()).bytes;
    const budget = new CacheBudget(onA, base + 150, pino({ level: 'silent' }));
    const put = async (on: Storage, filename: string, size: number) => {
      await blobs.writeBuffer(Buffer.from(filename), sha(filename));
      await on.cachedFiles.put(id('budget', filename), record(sha(filename), size, Date.now()));
      return id('budget', filename);
    };
    await budget.added(await put(onA, 'budget-1.0.tar.gz', 50));
    assert.equal((await onA.cachedFiles.totals()).bytes, base + 50, 'under the budget: nothing is evicted');
    const fromB = await put(onB, 'budget-2.0.tar.gz', 100);
    assert.ok(await onA.cachedFiles.get(fromB), "A reads B's record");
    await budget.added(await put(onA, 'budget-3.0.tar.gz', 50));
    const used = (await onA.cachedFiles.totals()).bytes;
    assert.ok(used <= base + 150, `A evicted down to its budget: ${used - base} over the start`);
  });

  test('an eviction counts the shared total once, not once per file it removes', async () => {
    const blobs = new FileBlobStore(join(dir, 'shared-counted'));
    await blobs.init();
    const operations: string[] = [];
    const counted = storageOf(await node({ observe: (operation) => operations.push(operation) }), 'node-counted', blobs);
    const base = (await counted.cachedFiles.totals()).bytes;
    const ids = [];
    for (let i = 0; i < 10; i++) {
      const filename = `counted-${i}.tar.gz`;
      await blobs.writeBuffer(Buffer.from(filename), sha(filename));
      await counted.cachedFiles.put(id('counted', filename), record(sha(filename), 100, i));
      ids.push(id('counted', filename));
    }
    operations.length = 0;
    await new CacheBudget(counted, base + 350, pino({ level: 'silent' })).added(ids[9]!);
    const counts = operations.filter((operation) => operation === 'cached-file-totals');
    assert.deepEqual(counts, ['cached-file-totals', 'cached-file-totals'], 'one count to decide, one to start from');
    assert.equal((await counted.cachedFiles.totals()).bytes, base + 300, 'the seven oldest went');
  });

  test("B's eviction spares a file A's mirror set needs", async () => {
    const { blobs, onA, onB } = await bothNodes('pins');
    const base = (await onB.cachedFiles.totals()).bytes;
    const put = async (filename: string, lastAccess: number) => {
      await blobs.writeBuffer(Buffer.from(filename), sha(filename));
      await onB.cachedFiles.put(id('pins', filename), record(sha(filename), 100, lastAccess));
      return id('pins', filename);
    };
    // The oldest file of all, so the first an eviction would take, is the one A's mirror set needs.
    const pinned = await put('pins-1.0.tar.gz', 0);
    await onA.mirrorSets.put(mirrorSetRecord('site', [{ ...pinned, size: 100 }]));
    assert.ok(await onB.mirrorSets.get('site'), "B reads A's mirror set");
    const budget = new CacheBudget(onB, base + 150, pino({ level: 'silent' }));
    await budget.added(await put('pins-2.0.tar.gz', Date.now()));
    assert.ok(await onB.cachedFiles.get(pinned), 'the pinned record stays');
    assert.equal(await blobs.has(sha('pins-1.0.tar.gz')), true, 'the pinned blob stays');
    assert.ok((await onB.cachedFiles.totals()).bytes <= base + 150, 'other files went instead');
  });

  test('database down: gets and puts are refused as BackendUnavailable, touches are kept; back up: the touches are written', async () => {
    const wheel = id('down', 'down-1.0-py3-none-any.whl');
    await a.cachedFiles.put(wheel, record('e'.repeat(64), 7));
    await server.stop();
    await assert.rejects(b.cachedFiles.get(wheel), BackendUnavailable);
    const refused = await a.cachedFiles.put(id('down', 'down-2.0.tar.gz'), record('f'.repeat(64), 8)).then(
      () => assert.fail('a put succeeded without a database'),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof BackendUnavailable, String(refused));
    assert.equal(refused.backend, 'postgres');
    await a.cachedFiles.touch(wheel, record('e'.repeat(64), 7), 9000);
    await assert.rejects(a.cachedFiles.flushTouches(), BackendUnavailable);

    await server.start();
    await eventually(
      async () => {
        try {
          await a.cachedFiles.flushTouches();
          return true;
        } catch (err) {
          if (err instanceof BackendUnavailable) return false;
          throw err;
        }
      },
      'the kept touch is written once the database is back',
      5000,
    );
    assert.equal((await b.cachedFiles.get(wheel))!.lastAccess, 9000);
    assert.equal(await b.cachedFiles.get(id('down', 'down-2.0.tar.gz')), undefined, 'the refused put was not written');
  });
});
