/**
 * Several nodes on one PostgreSQL database (stores opened twice in this process): changes reach the other
 * nodes by NOTIFY and by polling, the database decides concurrent uploads and serials, migrations run once,
 * download locks exclude across nodes, and a database restart is survived without reopening anything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BackendUnavailable } from '../../src/store/backend-unavailable.js';
import { PgDatabase } from '../../src/store/postgres/database.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { type OpenPostgresOptions, openPostgres, type PostgresBackends } from '../../src/store/postgres/open-postgres.js';
import { eventually } from '../helpers/eventually.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { fileRecord, publishInput } from '../helpers/storage-fixtures.js';

/** A URL with a password (the test cluster trusts every login) to see that it is never printed. */
const withPassword = (url: string) => url.replace('//larder@', '//larder:s3cret@');

/** Holds the revision lock (as a writer in the middle of its transaction does) until released. */
function lockRevisions(on: PostgresBackends) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked = () => {};
  const isLocked = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const done = on.database.transaction(async (tx) => {
    await tx.query("SELECT value FROM counters WHERE name = 'revision' FOR UPDATE");
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
    const opened = await openPostgres(url, { connectTimeoutMs: 1000, ...options });
    nodes.push(opened);
    return opened;
  };
  let a: PostgresBackends;
  let b: PostgresBackends;
  /** Backends of larder connections waiting for a lock. */
  const waitingWriters = async () =>
    (await a.database.pool.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'larder' AND wait_event_type = 'Lock'")).rows.map((r) => r.pid);

  before(async () => {
    server = await startPostgres();
    url = withPassword(await server.createDatabase());
    a = await node();
    b = await node({ pollMs: 60_000 });
  });
  after(async () => {
    for (const opened of nodes) await opened.close().catch(() => {});
    await server?.cleanup();
  });

  test('a write on A is seen on B by NOTIFY (B polls once a minute), and by a node that only polls', async () => {
    const polling = await node({ listen: false, pollMs: 100 });
    await a.index.publishFile(publishInput('seen-1.0-py3-none-any.whl', '1.0', 'a'.repeat(64), 'seen'));
    assert.ok(await a.index.getFile('seen', 'seen-1.0-py3-none-any.whl'), 'the writing node reads its own write at once');
    await eventually(async () => (await b.index.getFile('seen', 'seen-1.0-py3-none-any.whl')) !== undefined, 'B sees the file (NOTIFY)');
    await eventually(async () => (await polling.index.getFile('seen', 'seen-1.0-py3-none-any.whl')) !== undefined, 'the polling node sees the file');
    assert.equal(await b.index.lastSerial(), await a.index.lastSerial());
  });

  test('the same filename published on A and B at once: exactly one is created', async () => {
    for (let i = 0; i < 5; i++) {
      const filename = `race-${i}.0-py3-none-any.whl`;
      const same = await Promise.all([a, b].map((n) => n.index.publishFile(publishInput(filename, `${i}.0`, 'a'.repeat(64), 'race'))));
      assert.deepEqual(same.map((r) => r.outcome).sort(), ['created', 'identical'], filename);
      const other = `race-${i}.1-py3-none-any.whl`;
      const differ = await Promise.all([a, b].map((n, k) => n.index.publishFile(publishInput(other, `${i}.1`, (k === 0 ? 'c' : 'd').repeat(64), 'race'))));
      assert.deepEqual(differ.map((r) => r.outcome).sort(), ['conflict', 'created'], other);
      const winner = differ.findIndex((r) => r.outcome === 'created');
      for (const n of [a, b]) assert.equal((await n.index.getFile('race', other))!.sha256, (winner === 0 ? 'c' : 'd').repeat(64));
    }
  });

  test('serials from both nodes are strictly increasing and gap-free', async () => {
    await a.index.catchUp();
    const start = await a.index.lastSerial();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).index.publishFile(publishInput(`gaps-${i}.0-py3-none-any.whl`, `${i}.0`, 'e'.repeat(64), 'gaps'))),
    );
    const serials = results.map((r) => (r.outcome === 'created' ? r.serial : -1)).sort((x, y) => x - y);
    await Promise.all([a.index.catchUp(), b.index.catchUp()]);
    const log = (await b.index.changesSince(start)).map((c) => c.serial);
    assert.deepEqual(
      log,
      Array.from({ length: log.length }, (_, i) => start + 1 + i),
      'the changelog has no gap',
    );
    assert.equal(log.length, 21, 'twenty files and one new project');
    assert.deepEqual(
      serials,
      log.filter((s) => s !== log[0]!),
    );
    assert.deepEqual(await a.index.changesSince(start), await b.index.changesSince(start));
  });

  test("a token put on A is found on B after B's catchUp()", async () => {
    const quiet = await node({ listen: false, pollMs: 60_000 });
    const token = { id: 'f00d', hash: '9'.repeat(64), user: 'alice', projects: ['race'], description: 'CI', createdAt: new Date().toISOString() };
    await a.index.putToken(token);
    assert.equal(await quiet.index.getTokenByHash(token.hash), undefined, 'a node that neither listens nor polls has not seen it yet');
    await quiet.index.catchUp();
    assert.deepEqual(await quiet.index.getTokenByHash(token.hash), token);
    assert.equal(await b.index.removeToken('f00d'), true);
    await quiet.index.catchUp();
    assert.equal(await quiet.index.getTokenByHash(token.hash), undefined);
  });

  test("an import on a node that is behind sees the other nodes' writes and continues their serials", async () => {
    const quiet = await node({ listen: false, pollMs: 60_000 });
    const published = await a.index.publishFile(publishInput('behind-1.0-py3-none-any.whl', '1.0', 'a'.repeat(64), 'behind'));
    assert.equal(await quiet.index.getProject('behind'), undefined, 'the quiet node has not seen it');
    const seen = await quiet.index.importRecords(async (target) => {
      target.addFile(fileRecord('behind', '1.0', 'behind-1.0.tar.gz'));
      return (await target.getFiles('behind')).map((f) => f.filename);
    });
    assert.deepEqual(seen, ['behind-1.0-py3-none-any.whl', 'behind-1.0.tar.gz']);
    assert.equal((await quiet.index.getProject('behind'))!.serial, (published as { serial: number }).serial + 1);
    await a.index.catchUp();
    assert.deepEqual(
      (await a.index.changesSince((published as { serial: number }).serial)).map((c) => [c.action, c.filename]),
      [['add file', 'behind-1.0.tar.gz']],
    );
  });

  test('a node whose revisions were pruned meanwhile reloads everything', async () => {
    const quiet = await node({ listen: false, pollMs: 60_000 });
    const pruning = await node({ keepRevisions: 3 });
    const revision = async () => Number((await pruning.database.pool.query("SELECT value FROM counters WHERE name = 'revision'")).rows[0]!.value);
    const seenByQuiet = await revision();
    const names = Array.from({ length: 110 }, (_, i) => `pruned-${i}`);
    for (const name of names) await pruning.index.putUser({ name, passwordHash: 'h', admin: false, createdAt: '' });
    const [row] = (await pruning.database.pool.query('SELECT min(revision) AS oldest FROM revisions')).rows;
    assert.ok(Number(row!.oldest) > seenByQuiet + 1, 'revisions the quiet node has not read were pruned');
    await quiet.index.catchUp();
    const missing: string[] = [];
    for (const name of names) if (!(await quiet.index.getUser(name))) missing.push(name);
    assert.deepEqual(missing, []);
  });

  test('two nodes opening a fresh database at once both succeed; the schema is migrated once', async () => {
    const fresh = await server.createDatabase();
    const opened = await Promise.all([openPostgres(fresh), openPostgres(fresh)]);
    nodes.push(...opened);
    const versions = await opened[0]!.database.pool.query('SELECT version FROM schema_migrations');
    assert.equal(versions.rows.length, MIGRATIONS.length);
    await opened[0]!.index.putUser({ name: 'u', passwordHash: 'h', admin: false, createdAt: '' });
    await opened[1]!.index.catchUp();
    assert.equal((await opened[1]!.index.getUser('u'))!.name, 'u');
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
    const holder = lockRevisions(a);
    await holder.locked;
    try {
      const refused = await impatient.index.putUser({ name: 'late', passwordHash: 'h', admin: false, createdAt: '' }).catch((err: unknown) => err);
      assert.ok(refused instanceof BackendUnavailable, String(refused));
      assert.match(refused.message, /did not answer within 0\.3 s/);
    } finally {
      holder.release();
      await holder.done;
    }
    await a.index.putUser({ name: 'after-late', passwordHash: 'h', admin: false, createdAt: '' });
    assert.equal((await a.database.pool.query("SELECT name FROM users WHERE name = 'late'")).rows.length, 0, 'the refused write never commits');
  });

  test('a connection killed in the middle of a write transaction: the write is refused, the node goes on', async () => {
    // A time limit far beyond the test's waits: the kill, not the limit, must end the write.
    const patient = await node({ operationTimeoutMs: 120_000 });
    const holder = lockRevisions(a);
    await holder.locked;
    const write = patient.index.putUser({ name: 'killed', passwordHash: 'h', admin: false, createdAt: '' }).catch((err: unknown) => err);
    try {
      await eventually(async () => (await waitingWriters()).length === 1, "B's write waits for the revision lock");
      for (const pid of await waitingWriters()) await a.database.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      const refused = await write;
      assert.ok(refused instanceof BackendUnavailable, String(refused));
      assert.match(refused.message, /is unreachable/);
    } finally {
      holder.release();
      await holder.done;
    }
    await patient.index.putUser({ name: 'not-killed', passwordHash: 'h', admin: false, createdAt: '' });
    assert.ok(await patient.index.getUser('not-killed'));
    assert.equal(await patient.index.getUser('killed'), undefined);
  });

  // The test's own time-out is the bound on the refused write: a write that waits for the database hangs the test.
  test('database down: reads answer, writes are refused, no hang; back up: all recovers without reopening', { timeout: 60_000 }, async () => {
    const project = 'race';
    const files = (await a.index.getFiles(project)).length;
    await server.stop();
    assert.equal((await a.index.getFiles(project)).length, files, 'reads are served from the view');
    assert.ok(await b.index.getProject(project));
    const refused = await a.index.publishFile(publishInput('down-1.0-py3-none-any.whl', '1.0', 'a'.repeat(64), 'down')).then(
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
          await a.index.publishFile(publishInput('back-1.0-py3-none-any.whl', '1.0', 'a'.repeat(64), 'back'));
          return true;
        } catch (err) {
          if (err instanceof BackendUnavailable) return false;
          throw err;
        }
      },
      'a write on A succeeds again',
      5000,
    );
    await eventually(
      async () => (await b.index.getFile('back', 'back-1.0-py3-none-any.whl')) !== undefined,
      "B sees A's write again (B does not poll: its LISTEN connection came back)",
      5000,
    );
    await b.index.putUser({ name: 'after-restart', passwordHash: 'h', admin: false, createdAt: '' });
    await eventually(async () => (await a.index.getUser('after-restart')) !== undefined, "A sees B's write");
    const lock = await a.downloadLocks.tryLock('pypi/after/after-1.0.tar.gz');
    assert.ok(lock);
    assert.equal(await b.downloadLocks.tryLock('pypi/after/after-1.0.tar.gz'), null, 'locks exclude again');
    await lock();
  });
});
