/**
 * A node's memory does not grow with the size of the shared database (issue 27): `larder serve` on a
 * PostgreSQL database holding 100,000 records of cached upstream files and 5,000 private files idles
 * within 60 MiB of the same server on an empty database, and serves a private project from it. Slow
 * tier: it fills a database and starts the real server twice; reads /proc (Linux only).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openPostgres } from '../../src/store/postgres/open-postgres.js';
import { startChildServer } from '../helpers/child-server.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

const MiB = 1024 * 1024;

async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

/** 100,000 cached-file records over 5,000 upstream projects; 5,000 private files in 1,000 projects. */
async function fill(url: string): Promise<void> {
  const opened = await openPostgres(url);
  await opened.close();
  const db = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await db.query(`INSERT INTO cached_files SELECT 'up-' || (i % 5000), 'up-' || i || '-py3-none-any.whl', 'file', md5(i::text) || md5(i::text), 100000, 1, 1
      FROM generate_series(1, 100000) i`);
    await db.query(`INSERT INTO projects SELECT 'own-' || i, 'Own-' || i, 't', 0, null, '{alice}', '{}' FROM generate_series(0, 999) i`);
    await db.query(`INSERT INTO releases SELECT 'own-' || (i % 1000), '1.' || i, '{"name":"own","summary":"a summary of the release"}', 't', false, null
      FROM generate_series(1, 5000) i`);
    await db.query(`INSERT INTO files SELECT 'own-' || (i % 1000), 'own_' || (i % 1000) || '-1.' || i || '-py3-none-any.whl', '1.' || i, 'bdist_wheel', 'py3', 1000,
      md5(i::text) || md5(i::text), md5(i::text), md5(i::text) || md5(i::text), 't', null, null, null, null, 'alice' FROM generate_series(1, 5000) i`);
    await db.query("SELECT setval('serials', 10000)");
  } finally {
    await db.end();
  }
}

describe('a node on a large PostgreSQL database', { skip: !existsSync('/proc/self/status') && 'needs /proc' }, () => {
  let database: TestPostgres;
  let dir: string;
  before(async () => {
    database = await startPostgres();
    dir = await mkdtemp(join(tmpdir(), 'larder-pg-memory-'));
  });
  after(async () => {
    await database?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Idle resident memory of `larder serve` on the database, after it answered `path`. */
  const idleNode = async (url: string, name: string, path: string) => {
    const server = await startChildServer(['--data', join(dir, name), '--upstream', 'none'], { LARDER_DATABASE_URL: url });
    try {
      const res = await fetch(`${server.url}${path}`);
      await res.arrayBuffer();
      // Idle: what the process holds once started and settled, as an operator's monitoring would see it.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return { status: res.status, rss: await residentBytes(server.child.pid!) };
    } finally {
      await server.stop('SIGTERM');
    }
  };

  test('idles within 60 MiB of a node on an empty database, and serves from it', { timeout: 180_000 }, async () => {
    const empty = await database.createDatabase();
    const large = await database.createDatabase();
    await openPostgres(empty).then((opened) => opened.close());
    await fill(large);
    const onEmpty = await idleNode(empty, 'empty', '/simple/');
    const onLarge = await idleNode(large, 'large', '/simple/own-7/');
    assert.equal(onLarge.status, 200, 'the private project is served');
    const grown = (onLarge.rss - onEmpty.rss) / MiB;
    assert.ok(grown < 60, `idle RSS ${Math.round(onLarge.rss / MiB)} MiB on the large database, ${Math.round(onEmpty.rss / MiB)} MiB on the empty one`);
  });
});
