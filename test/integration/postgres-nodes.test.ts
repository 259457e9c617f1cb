/**
 * Several nodes on one PostgreSQL database (stores opened twice in this process): reads are queries, the
 * ones a request makes cached per node and emptied by NOTIFY; the database decides concurrent uploads and
 * serials without a lock every write waits on; migrations run once, and an older schema migrates forward;
 * download locks exclude across nodes, and a database restart is survived without reopening anything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BackendUnavailable } from '../../src/store/backend-unavailable.js';
import { PgDatabase } from '../../src/store/postgres/database.js';
import { MIGRATIONS, migrate } from '../../src/store/postgres/migrations.js';
import { type OpenPostgresOptions, openPostgres, type PostgresBackends } from '../../src/store/postgres/open-postgres.js';
import { eventually } from '../helpers/eventually.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { publishInput } from '../helpers/storage-fixtures.js';

/** A URL with a password (the test cluster trusts every login) to see that it is never printed. */
const withPassword = (url: string) => url.replace('//larder@', '//larder:s3cret@');
const wheel = (project: string, version: string) => `${project.replace(/-/g, '_')}-${version}-py3-none-any.whl`;
const user = (name: string) => ({ name, passwordHash: 'h', admin: false, createdAt: '' });

/** Holds the row lock of one project (as a writer of that project in the middle of its transaction does) until released. */
function lockProjectRow(on: PostgresBackends, name: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked = () => {};
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const done = on.database.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM projects WHERE name = $1 FOR UPDATE', [name]);
    locked();
    await released;
  });
  return { locked: isLocked, release, done };
}

describe('several nodes on one PostgreSQL', () => {
  let server: TestPostgres;
  let url: string;
  const nodes: PostgresBackends[] = [];
  const node = async (options: OpenPostgresOptions = {}) => {
    // The bound also covers waiting for one of the pool's connections: twenty writes at once queue for
    // them, and on a busy machine 1 s was not enough.
    const opened = await openPostgres(url, { connectTimeoutMs: 5000, ...options });
    nodes.push(opened);
    return opened;
  };
  let a: PostgresBackends;
  let b: PostgresBackends;
  /** The reads B sent to the database, by operation. */
  const readsOfB: string[] = [];
  /** Backends of larder connections waiting for a lock. */
  const waitingWriters = async () =>
    (await a.database.pool.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'larder' AND wait_event_type = 'Lock'")).rows.map((r) => r.pid);

  before(async () => {
    server = await startPostgres();
    url = withPassword(await server.createDatabase());
    a = await node();
    b = await node({ observe: (operation) => readsOfB.push(operation) });
  });
  after(async () => {
    for (const opened of nodes) await opened.close().catch(() => {});
    await server?.cleanup();
  });

  test('a project page read costs one query uncached, none cached; a change on A empties B’s cache (NOTIFY)', async () => {
    await a.index.publishFile(publishInput(wheel('paged', '1.0'), '1.0', 'a'.repeat(64), 'paged'));
    const page = async (on: PostgresBackends) => {
      const project = await on.index.getProject('paged');
      const releases = await on.index.getReleases('paged');
      const files = await on.index.getFiles('paged');
      const file = await on.index.getFile('paged', files[0]!.filename);
      return { serial: project!.serial, versions: releases.map((r) => r.version), files: files.map((f) => f.filename), file: file!.sha256 };
    };
    await b.index.catchUp();
    readsOfB.length = 0;
    const first = await page(b);
    assert.deepEqual(readsOfB, ['read-project'], 'project, releases, files and removed names in one query');
    readsOfB.length = 0;
    assert.deepEqual(await page(b), first);
    assert.equal(await b.index.lastSerial(), await a.index.lastSerial());
    readsOfB.length = 0;
    assert.deepEqual(await page(b), first);
    await b.index.lastSerial();
    assert.deepEqual(readsOfB, [], 'a cached page and the last serial cost no query');

    await a.index.publishFile(publishInput(wheel('paged', '2.0'), '2.0', 'b'.repeat(64), 'paged'));
    assert.deepEqual((await page(a)).versions, ['1.0', '2.0'], 'the writing node reads its write at once');
    await eventually(async () => (await page(b)).versions.length === 2, 'B sees the new release (NOTIFY emptied its cache)');
    assert.equal((await b.index.getProject('paged'))!.serial, await a.index.lastSerial());
  });

  test('a project status set on A reaches B’s cached project record (NOTIFY project:<name>)', async () => {
    await a.index.publishFile(publishInput(wheel('statused', '1.0'), '1.0', 'a'.repeat(64), 'statused'));
    await b.index.catchUp();
    assert.equal((await b.index.getProject('statused'))!.status, undefined, 'now cached on B');
    await a.index.setProjectStatus('statused', 'quarantined', 'under review', 'alice');
    await eventually(async () => (await b.index.getProject('statused'))!.status === 'quarantined', 'B sees the quarantine');
    assert.equal((await b.index.getProject('statused'))!.statusReason, 'under review');
    await a.index.setProjectStatus('statused', 'active', null, 'alice');
    await eventually(async () => (await b.index.getProject('statused'))!.status === undefined, 'B sees it active again');
  });

  test('concurrent reads of a project not cached share one query', async () => {
    await a.index.publishFile(publishInput(wheel('crowded', '1.0'), '1.0', 'a'.repeat(64), 'crowded'));
    await b.index.catchUp();
    readsOfB.length = 0;
    const pages = await Promise.all(Array.from({ length: 10 }, () => b.index.getFiles('crowded')));
    assert.deepEqual(
      pages.map((files) => files.length),
      Array(10).fill(1),
    );
    assert.deepEqual(readsOfB, ['read-project']);
  });

  test('after catchUp() a node reads every change committed before the call', async () => {
    for (let i = 0; i < 5; i++) {
      await b.index.getUser(`caught-${i}`);
      await a.index.putUser(user(`caught-${i}`));
      await b.index.catchUp();
      assert.ok(await b.index.getUser(`caught-${i}`), `caught-${i}`);
    }
  });

  test('a node that does not LISTEN caches nothing: it reads every change at once', async () => {
    const quiet = await node({ listen: false });
    assert.equal(await quiet.index.getUser('uncached'), undefined);
    await a.index.putUser(user('uncached'));
    assert.ok(await quiet.index.getUser('uncached'));
  });

  test('a token revoked on A is refused on B within seconds; one made on A is found on B after catchUp()', async () => {
    const token = { id: 'f00d00000000', hash: '9'.repeat(64), user: 'alice', projects: null, description: 'CI', createdAt: new Date().toISOString() };
    assert.equal(await b.index.getTokenByHash(token.hash), undefined);
    await a.index.putToken(token);
    await b.index.catchUp();
    assert.deepEqual({ ...(await b.index.getTokenByHash(token.hash)) }, token);
    assert.ok(await b.index.getTokenByHash(token.hash), 'now cached on B');
    assert.equal(await a.index.removeToken(token.id), true);
    await eventually(async () => (await b.index.getTokenByHash(token.hash)) === undefined, 'B refuses the revoked token');
  });

  test('an advisory import on A moves B’s advisory generation (NOTIFY), and B reads the new set', async () => {
    const before = b.advisories.generation();
    const record = { id: 'MAL-2026-1', project: 'evil', summary: '', aliases: [], modified: '', severity: null, score: null, ranges: [], versions: ['1.0'] };
    await a.advisories.replaceAll([record], { advisories: 1, importedAt: '2026-06-01T00:00:00.000Z', source: 'all.zip', by: 'root' });
    await eventually(() => b.advisories.generation() !== before, 'B sees the import');
    assert.deepEqual(await b.advisories.entries(), [record]);
  });

  test('the same filename published on A and B at once: exactly one is created', async () => {
    for (let i = 0; i < 5; i++) {
      const filename = wheel('race', `${i}.0`);
      const same = await Promise.all([a, b].map((n) => n.index.publishFile(publishInput(filename, `${i}.0`, 'a'.repeat(64), 'race'))));
      assert.deepEqual(same.map((r) => r.outcome).sort(), ['created', 'identical'], filename);
      const other = wheel('race', `${i}.1`);
      const differ = await Promise.all([a, b].map((n, k) => n.index.publishFile(publishInput(other, `${i}.1`, (k === 0 ? 'c' : 'd').repeat(64), 'race'))));
      assert.deepEqual(differ.map((r) => r.outcome).sort(), ['conflict', 'created'], other);
      const winner = differ.findIndex((r) => r.outcome === 'created');
      for (const n of [a, b]) {
        await n.index.catchUp();
        assert.equal((await n.index.getFile('race', other))!.sha256, (winner === 0 ? 'c' : 'd').repeat(64));
      }
    }
  });

  test('concurrent publishes of distinct files from both nodes all land, each with a serial of its own', async () => {
    const start = await a.index.lastSerial();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).index.publishFile(publishInput(wheel(`many-${i % 4}`, `${i}.0`), `${i}.0`, 'e'.repeat(64), `many-${i % 4}`)),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.outcome),
      Array(20).fill('created'),
    );
    const serials = results.map((r) => (r as { serial: number }).serial);
    assert.equal(new Set(serials).size, 20, 'no serial twice');
    const log = await b.index.changesSince(start);
    assert.deepEqual(
      log.filter((c) => c.action === 'add file').map((c) => c.serial),
      [...serials].sort((x, y) => x - y),
    );
    assert.equal(log.filter((c) => c.action === 'create project').length, 4);
    for (let p = 0; p < 4; p++) {
      const project = await a.index.getProject(`many-${p}`);
      assert.equal(project!.serial, Math.max(...log.filter((c) => c.project === `many-${p}`).map((c) => c.serial)), 'a project has its last change’s serial');
    }
  });

  test('a writer holding one project’s row lock does not hold up writes of other projects or users', async () => {
    const holder = lockProjectRow(a, 'race');
    await holder.locked;
    try {
      const other = await b.index.publishFile(publishInput(wheel('unheld', '1.0'), '1.0', 'a'.repeat(64), 'unheld'));
      assert.equal(other.outcome, 'created');
      await b.index.putUser(user('unheld'));
    } finally {
      holder.release();
      await holder.done;
    }
  });

  test('two nodes opening a fresh database at once both succeed; the schema is migrated once', async () => {
    const fresh = await server.createDatabase();
    const opened = await Promise.all([openPostgres(fresh), openPostgres(fresh)]);
    nodes.push(...opened);
    const versions = await opened[0]!.database.pool.query('SELECT version FROM schema_migrations');
    assert.equal(versions.rows.length, MIGRATIONS.length);
    await opened[0]!.index.putUser(user('u'));
    assert.equal((await opened[1]!.index.getUser('u'))!.name, 'u');
  });

  test('a database of the previous schema (serial counter, revisions) migrates forward and continues its serials', async () => {
    const old = await server.createDatabase();
    const db = new PgDatabase(old);
    try {
      await migrate(db, MIGRATIONS.slice(0, 6));
      await db.pool.query("UPDATE counters SET value = 41 WHERE name = 'serial'");
      await db.pool.query("INSERT INTO changelog VALUES (41, 'kept', null, null, 'create project', null, 't')");
    } finally {
      await db.close();
    }
    const upgraded = await openPostgres(old);
    nodes.push(upgraded);
    assert.equal(await upgraded.index.lastSerial(), 41);
    const published = await upgraded.index.publishFile(publishInput(wheel('kept', '1.0'), '1.0', 'a'.repeat(64), 'kept'));
    assert.deepEqual(published, { outcome: 'created', serial: 43, newProject: true });
    const tables = await upgraded.database.pool.query("SELECT count(*) AS n FROM pg_tables WHERE tablename IN ('revisions', 'counters')");
    assert.equal(Number(tables.rows[0]!.n), 0, 'what only the per-node copies needed is gone');
  });

  test('download locks exclude across nodes; a node that goes away frees its locks', async () => {
    const c = await node();
    const release = await a.downloadLocks.tryLock('pypi/demo/demo-1.0.tar.gz');
    assert.ok(release);
    assert.equal(await c.downloadLocks.tryLock('pypi/demo/demo-1.0.tar.gz'), null);
    assert.equal(await a.downloadLocks.tryLock('pypi/demo/demo-1.0.tar.gz'), null, 'one holder on a node too');
    assert.ok(await c.downloadLocks.tryLock('pypi/demo/other.tar.gz'), 'another key is free');
    await release();
    const taken = await c.downloadLocks.tryLock('pypi/demo/demo-1.0.tar.gz');
    assert.ok(taken);
    assert.equal(await a.downloadLocks.tryLock('pypi/demo/demo-1.0.tar.gz'), null);
    await c.close();
    await eventually(async () => (await a.downloadLocks.tryLock('pypi/demo/demo-1.0.tar.gz')) !== null, 'the lock of a closed node is free');
  });

  test('a statement over the server-side bound is refused as BackendUnavailable, naming the database', async () => {
    const db = new PgDatabase(url, { statementTimeoutMs: 200 });
    try {
      const refused = await db.run('sleep', () => db.pool.query('SELECT pg_sleep(2)')).catch((err: unknown) => err);
      assert.ok(refused instanceof BackendUnavailable, String(refused));
      assert.match(refused.message, /^the database \(postgres:\/\/larder:\*\*\*@127\.0\.0\.1:\d+\/test_\d+\) is too slow: /);
    } finally {
      await db.close();
    }
  });

  test('a write that outlives its time limit is refused and rolls back instead of committing later', async () => {
    const impatient = await node({ operationTimeoutMs: 300 });
    const holder = lockProjectRow(a, 'race');
    await holder.locked;
    try {
      const refused = await impatient.index.addMaintainer('race', 'late', null).catch((err: unknown) => err);
      assert.ok(refused instanceof BackendUnavailable, String(refused));
      assert.match(refused.message, /did not answer within 0\.3 s/);
    } finally {
      holder.release();
      await holder.done;
    }
    await a.index.addMaintainer('race', 'after-late', null);
    assert.deepEqual((await a.index.getProject('race'))!.maintainers, ['after-late'], 'the refused write never commits');
  });

  test('a connection killed in the middle of a write transaction: the write is refused, the node goes on', async () => {
    // A time limit far beyond the test's waits: the kill, not the limit, must end the write.
    const patient = await node({ operationTimeoutMs: 120_000 });
    const holder = lockProjectRow(a, 'race');
    await holder.locked;
    const write = patient.index.addMaintainer('race', 'killed', null).catch((err: unknown) => err);
    try {
      await eventually(async () => (await waitingWriters()).length === 1, "the write waits for the project's row lock");
      for (const pid of await waitingWriters()) await a.database.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      const refused = await write;
      assert.ok(refused instanceof BackendUnavailable, String(refused));
      assert.match(refused.message, /is unreachable/);
    } finally {
      holder.release();
      await holder.done;
    }
    await patient.index.addMaintainer('race', 'not-killed', null);
    assert.deepEqual((await patient.index.getProject('race'))!.maintainers, ['after-late', 'not-killed']);
  });

  // The test's own time-out is the bound on the refused write: a write that waits for the database hangs the test.
  test('database down: what a node cached is still served, other reads and writes are refused; back up: all recovers', { timeout: 60_000 }, async () => {
    await b.index.catchUp();
    const files = (await b.index.getFiles('race')).length;
    await server.stop();
    assert.equal((await b.index.getFiles('race')).length, files, 'a cached project is served while the database is away');
    await assert.rejects(b.index.getProject('never-read'), BackendUnavailable);
    const refused = await a.index.publishFile(publishInput(wheel('down', '1.0'), '1.0', 'a'.repeat(64), 'down')).then(
      () => assert.fail('a write succeeded without a database'),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof BackendUnavailable, String(refused));
    assert.equal(refused.backend, 'postgres');
    assert.match(refused.message, /^the database \(postgres:\/\/larder:\*\*\*@127\.0\.0\.1:\d+\/test_\d+\) (is unreachable|did not answer)/);
    assert.doesNotMatch(refused.message, /s3cret/);
    assert.ok(await a.downloadLocks.tryLock('pypi/x/x-1.0.tar.gz'), 'download locks are granted while the database is down');
    await assert.rejects(a.database.ping(), BackendUnavailable);

    await server.start();
    await eventually(
      async () => {
        try {
          await a.index.publishFile(publishInput(wheel('back', '1.0'), '1.0', 'a'.repeat(64), 'back'));
          return true;
        } catch (err) {
          if (err instanceof BackendUnavailable) return false;
          throw err;
        }
      },
      'a write on A succeeds again',
      5000,
    );
    assert.ok(await b.index.getFile('back', wheel('back', '1.0')), "B reads A's write");
    await b.index.getUser('after-restart');
    await eventually(() => b.changes.listening, 'B listens again', 5000);
    await b.index.getUser('after-restart');
    await a.index.putUser(user('after-restart'));
    await eventually(
      async () => (await b.index.getUser('after-restart')) !== undefined,
      "B's cache is emptied by A's write again (its LISTEN connection came back)",
    );
    const lock = await a.downloadLocks.tryLock('pypi/after/after-1.0.tar.gz');
    assert.ok(lock);
    assert.equal(await b.downloadLocks.tryLock('pypi/after/after-1.0.tar.gz'), null, 'locks exclude again');
    await lock();
  });
});
