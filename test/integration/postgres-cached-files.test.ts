/**
 * The records of cached upstream files shared by several nodes on one PostgreSQL database and one blob
 * store: a record put or deleted on one node reaches the others within 1 s, touches are cheap and lose
 * nothing, and garbage collection, purges and evictions on one node never leave another node's record
 * pointing at a missing blob. Also: the database down and back.
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
const revision = async (on: PostgresBackends) => Number((await on.database.pool.query("SELECT value FROM counters WHERE name = 'revision'")).rows[0]!.value);

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
    a = await node();
    b = await node({ pollMs: 60_000 });
  });
  after(async () => {
    for (const each of opened.reverse()) await each.close().catch(() => {});
    await server?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('a put on A is seen by B (NOTIFY; B polls once a minute); a delete on A disappears on B; the totals agree', async () => {
    const wheel = id('shared', 'shared-1.0-py3-none-any.whl');
    const metadata = { ...wheel, variant: 'metadata' };
    await a.cachedFiles.put(wheel, record('a'.repeat(64), 100));
    await a.cachedFiles.put(metadata, record('b'.repeat(64), 5));
    assert.deepEqual(await a.cachedFiles.get(wheel), record('a'.repeat(64), 100), 'the writing node reads its own write at once');
    await eventually(async () => (await b.cachedFiles.get(metadata)) !== undefined, 'B sees both records (NOTIFY)');
    assert.deepEqual(await b.cachedFiles.get(wheel), record('a'.repeat(64), 100));
    assert.deepEqual(await b.cachedFiles.totals(), await a.cachedFiles.totals());
    assert.deepEqual(await a.cachedFiles.totals(), { bytes: 105, files: 2 });
    await a.cachedFiles.delete(wheel);
    await eventually(async () => (await b.cachedFiles.get(wheel)) === undefined, 'the record deleted on A is gone on B');
    assert.deepEqual(await b.cachedFiles.totals(), { bytes: 5, files: 1 });
    assert.deepEqual(await b.cachedFiles.totals(), await a.cachedFiles.totals());
    await b.cachedFiles.delete(metadata);
    await eventually(async () => (await a.cachedFiles.totals()).files === 0, "A sees B's delete");
  });

  test('a delete of a record that is not there takes no revision', async () => {
    const before = await revision(a);
    await a.cachedFiles.delete(id('nothing', 'nothing-1.0.tar.gz'));
    assert.equal(await revision(a), before);
  });

  test("touch takes no revision nor the writers' lock, never goes back in time and loses no other node's record", async () => {
    const quiet = await node({ listen: false, pollMs: 60_000 });
    const wheel = id('touched', 'touched-1.0-py3-none-any.whl');
    await b.cachedFiles.put(wheel, record('c'.repeat(64), 10, 1000));
    await eventually(async () => (await a.cachedFiles.get(wheel)) !== undefined, "A sees B's record");
    const before = await revision(a);
    // Another node in the middle of a write holds the revision lock: a touch does not wait for it.
    let release = () => {};
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = b.database.transaction(async (tx) => {
      await tx.query("SELECT value FROM counters WHERE name = 'revision' FOR UPDATE");
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await isLocked;
    try {
      await a.cachedFiles.touch(wheel, (await a.cachedFiles.get(wheel))!, 5000);
      await quiet.cachedFiles.touch(wheel, record('c'.repeat(64), 10, 1000), 3000);
    } finally {
      release();
      await holder;
    }
    assert.equal(await revision(a), before, 'no revision taken');
    assert.equal((await a.cachedFiles.get(wheel))!.lastAccess, 5000, "A's view at once");
    assert.equal((await b.cachedFiles.get(wheel))!.lastAccess, 1000, "B's view follows only at its next reload of the project");
    const [row] = (await a.database.pool.query('SELECT last_access FROM cached_files WHERE project = $1', ['touched'])).rows;
    assert.equal(Number(row!.last_access), 5000, 'the earlier touch from another node did not move it back');
    await b.cachedFiles.put(id('touched', 'touched-2.0.tar.gz'), record('d'.repeat(64), 20));
    await eventually(async () => (await b.cachedFiles.get(wheel))!.lastAccess === 5000, 'B reloads the project with the touched time');
    await quiet.index.catchUp();
    assert.deepEqual(
      await quiet.cachedFiles.get(wheel),
      record('c'.repeat(64), 10, 5000),
      'the quiet node, which touched a record it had not seen, has it whole',
    );
    assert.deepEqual(await quiet.cachedFiles.totals(), { bytes: 30, files: 2 });
  });

  test("gc, purge and eviction on A spare the blobs of B's records, and take B's records with the blobs they remove", async () => {
    const { blobs, onA, onB } = await bothNodes('gc');
    const bytes = (s: string) => Buffer.from(s);
    const kept = id('gc', 'gc-1.0.tar.gz');
    await blobs.writeBuffer(bytes('recorded by B only'), sha('recorded by B only'));
    await onB.cachedFiles.put(kept, record(sha('recorded by B only'), 18));
    await a.index.catchUp();
    const later = new ManualClock(Date.now() + 2 * 60 * 60_000);
    const collected = await collectGarbage(onA, later);
    assert.equal(collected.blobs, 0);
    assert.equal(await blobs.has(sha('recorded by B only')), true, "A's gc keeps the blob B recorded");

    const purged = await purgeCache(onA, ['gc']);
    assert.equal(purged.files, 1);
    assert.equal(await blobs.has(sha('recorded by B only')), false);
    await eventually(async () => (await onB.cachedFiles.get(kept)) === undefined, "B's record of the purged blob is gone on B");

    const old = id('evict', 'evict-1.0.tar.gz');
    const fresh = id('evict', 'evict-2.0.tar.gz');
    await blobs.writeBuffer(bytes('old file'), sha('old file'));
    await onB.cachedFiles.put(old, record(sha('old file'), 100, 1));
    await blobs.writeBuffer(bytes('new file'), sha('new file'));
    await onA.cachedFiles.put(fresh, record(sha('new file'), 100, 2));
    const budget = new CacheBudget(onA, 150, pino({ level: 'silent' }));
    await budget.added(fresh);
    assert.equal(await blobs.has(sha('old file')), false, "A evicted B's least recently used file");
    await eventually(async () => (await onB.cachedFiles.get(old)) === undefined, "B's record of the evicted file is gone on B");
    assert.ok(await onB.cachedFiles.get(fresh));
  });

  test("A's cache budget counts what B records: the shared total, not A's own additions", async () => {
    const { blobs, onA, onB } = await bothNodes('budget');
    await a.index.catchUp();
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
    await eventually(async () => (await onA.cachedFiles.get(fromB)) !== undefined, "A sees B's record");
    await budget.added(await put(onA, 'budget-3.0.tar.gz', 50));
    assert.ok(
      (await onA.cachedFiles.totals()).bytes <= base + 150,
      `A evicted down to its budget: ${(await onA.cachedFiles.totals()).bytes - base} over the start`,
    );
  });

  test("B's eviction spares a file A's mirror set needs", async () => {
    const { blobs, onA, onB } = await bothNodes('pins');
    await b.index.catchUp();
    const base = (await onB.cachedFiles.totals()).bytes;
    const put = async (filename: string, lastAccess: number) => {
      await blobs.writeBuffer(Buffer.from(filename), sha(filename));
      await onB.cachedFiles.put(id('pins', filename), record(sha(filename), 100, lastAccess));
      return id('pins', filename);
    };
    // The oldest file of all, so the first an eviction would take, is the one A's mirror set needs.
    const pinned = await put('pins-1.0.tar.gz', 0);
    await onA.mirrorSets.put(mirrorSetRecord('site', [{ ...pinned, size: 100 }]));
    await eventually(async () => (await onB.mirrorSets.get('site')) !== undefined, "B sees A's mirror set");
    const budget = new CacheBudget(onB, base + 150, pino({ level: 'silent' }));
    await budget.added(await put('pins-2.0.tar.gz', Date.now()));
    assert.ok(await onB.cachedFiles.get(pinned), 'the pinned record stays');
    assert.equal(await blobs.has(sha('pins-1.0.tar.gz')), true, 'the pinned blob stays');
    assert.ok((await onB.cachedFiles.totals()).bytes <= base + 150, 'other files went instead');
  });

  test('database down: gets answer from the view, a put is refused as BackendUnavailable; back up: B sees the puts again', async () => {
    const wheel = id('down', 'down-1.0-py3-none-any.whl');
    await a.cachedFiles.put(wheel, record('e'.repeat(64), 7));
    await eventually(async () => (await b.cachedFiles.get(wheel)) !== undefined, 'B sees the record');
    await server.stop();
    assert.deepEqual(await b.cachedFiles.get(wheel), record('e'.repeat(64), 7), 'reads are served from the view');
    const refused = await a.cachedFiles.put(id('down', 'down-2.0.tar.gz'), record('f'.repeat(64), 8)).then(
      () => assert.fail('a put succeeded without a database'),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof BackendUnavailable, String(refused));
    assert.equal(refused.backend, 'postgres');
    await assert.rejects(a.cachedFiles.touch(wheel, (await a.cachedFiles.get(wheel))!, 9000), BackendUnavailable);
    assert.equal((await a.cachedFiles.get(wheel))!.lastAccess, 9000, "a failed touch still orders this node's evictions");

    await server.start();
    const back = id('down', 'back-1.0.tar.gz');
    await eventually(
      async () => {
        try {
          await a.cachedFiles.put(back, record('0'.repeat(64), 9));
          return true;
        } catch (err) {
          if (err instanceof BackendUnavailable) return false;
          throw err;
        }
      },
      'a put on A succeeds again',
      5000,
    );
    await eventually(async () => (await b.cachedFiles.get(back)) !== undefined, "B sees A's put again (its LISTEN connection came back)", 5000);
    assert.equal(await b.cachedFiles.get(id('down', 'down-2.0.tar.gz')), undefined, 'the refused put was not written');
  });
});
