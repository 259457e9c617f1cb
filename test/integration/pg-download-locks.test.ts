/**
 * The download locks' own connection to PostgreSQL: many locks asked at once on one node run their queries
 * one after another on it (a `pg` client given a query while another runs warns now and fails in pg 9),
 * every key still has one holder, and a key asked twice at once on one node is granted once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { PgDatabase } from '../../src/store/postgres/database.js';
import { PgDownloadLocks } from '../../src/store/postgres/pg-download-locks.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

/** The lock connection's queries under way at once, at most, seen from the `pg` client itself. */
function watchQueries(db: PgDatabase): { most: () => number } {
  let running = 0;
  let most = 0;
  const open = db.newClient.bind(db);
  db.newClient = () => {
    const client = open();
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
    (client as { query: unknown }).query = async (...args: unknown[]) => {
      running++;
      most = Math.max(most, running);
      try {
        return await query(...args);
      } finally {
        running--;
      }
    };
    return client;
  };
  return { most: () => most };
}

describe('PgDownloadLocks on one connection', () => {
  let server: TestPostgres;
  let url: string;
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);

  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    process.on('warning', onWarning);
  });

  after(async () => {
    process.off('warning', onWarning);
    await server?.cleanup();
  });

  test('fifty locks asked at once: one query at a time on the connection, no pg warning, each key granted once', async () => {
    const db = new PgDatabase(url);
    const other = new PgDatabase(url);
    const watched = watchQueries(db);
    const locks = new PgDownloadLocks(db);
    const rival = new PgDownloadLocks(other);
    try {
      const keys = Array.from({ length: 50 }, (_, i) => `blob:${i}`);
      const releases = await Promise.all(keys.map((key) => locks.tryLock(key)));
      assert.ok(
        releases.every((r) => r !== null),
        'every free key is granted',
      );
      assert.equal(watched.most(), 1, 'the queries ran one after another');
      assert.deepEqual(await Promise.all(keys.slice(0, 5).map((key) => rival.tryLock(key))), [null, null, null, null, null], 'another node is refused');
      await Promise.all(releases.map((release) => release!()));
      assert.equal(watched.most(), 1);
      assert.ok(await rival.tryLock('blob:3'), 'released keys are free for another node');
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((w) => /already executing a query/.test(w)),
        [],
      );
    } finally {
      await Promise.all([locks.close(), rival.close()]);
      await Promise.all([db.close(), other.close()]);
    }
  });

  test('one key asked twice at once on one node: one holder (session locks are re-entrant in PostgreSQL)', async () => {
    const db = new PgDatabase(url);
    const locks = new PgDownloadLocks(db);
    try {
      const [first, second] = await Promise.all([locks.tryLock('blob:same'), locks.tryLock('blob:same')]);
      assert.equal([first, second].filter((r) => r !== null).length, 1);
      await (first ?? second)!();
      assert.ok(await locks.tryLock('blob:same'), 'free again once released');
    } finally {
      await locks.close();
      await db.close();
    }
  });
});
