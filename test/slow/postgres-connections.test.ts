/**
 * LARDER_DATABASE_POOL bounds every connection one larder opens to PostgreSQL (docs/scale-out.md, "Sizing
 * the database connections"): under concurrent uploads and first downloads of upstream files through a
 * shared bucket (download locks, records of cached files, catch-ups), the node's connections counted in
 * `pg_stat_activity` never exceed the setting, and the load is enough to reach it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { DEDICATED_CONNECTIONS, PgDatabase } from '../../src/store/postgres/database.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { exportTestCredentials, startRealS3, type TestS3Server } from '../helpers/s3-server.js';
import { publish } from '../helpers/upload-form.js';

const POOL = 4;
const DOWNLOADS = 12;
const UPLOADS = 8;

let dir: string;
let database: TestPostgres;
let databaseName: string;
let upstream: FakeUpstream;
let s3: TestS3Server;
let larder: TestLarder;
let watcher: pg.Client;
let token: string;
const cached: BuiltDist[] = [];
const own: BuiltDist[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-pg-connections-'));
  upstream = await startFakeUpstream();
  for (let i = 0; i < DOWNLOADS; i++) {
    const wheel = await buildWheel(join(dir, 'up'), { name: `pooled-up-${i}`, version: '1.0' });
    upstream.addProject(wheel.name, [wheel]);
    cached.push(wheel);
  }
  for (let i = 0; i < UPLOADS; i++) own.push(await buildWheel(join(dir, 'own'), { name: `pooled-own-${i}`, version: '1.0' }));
  database = await startPostgres();
  const url = await database.createDatabase();
  databaseName = new URL(url).pathname.slice(1);
  s3 = await startRealS3();
  const bucket = await s3.createBucket();
  exportTestCredentials();
  larder = await startLarder({
    upstream: upstream.url,
    databaseUrl: url,
    databasePool: POOL,
    blobStore: `s3://${bucket}/larder`,
    s3Endpoint: s3.endpoint,
    s3Region: s3.credentials.region,
  });
  await larder.addUser('alice', 'alice-password-1');
  token = await larder.addToken('alice');
  // Not the node's: its connections are the ones named 'larder'.
  watcher = new pg.Client({ connectionString: url, application_name: 'connection-watcher' });
  await watcher.connect();
});

after(async () => {
  await watcher?.end();
  await larder?.close();
  await Promise.all([upstream?.close(), s3?.close()]);
  await database?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

const nodeConnections = async () =>
  Number((await watcher.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'larder'", [databaseName])).rows[0]!.n);

test('a node given fewer connections than it needs is refused before connecting', () => {
  assert.throws(() => new PgDatabase('postgres://larder@127.0.0.1:1/none', { connections: DEDICATED_CONNECTIONS }), /at least 3 database connections/);
});

test(`a node opens at most LARDER_DATABASE_POOL (${POOL}) connections, however many requests write at once`, async () => {
  const alice = basicAuth('__token__', token);
  let loading = true;
  const seen: number[] = [];
  const watching = (async () => {
    while (loading) seen.push(await nodeConnections());
  })();
  const downloads = cached.map(async (wheel) => {
    const res = await fetch(`${larder.url}/packages/${wheel.name}/${wheel.filename}`);
    assert.equal(res.status, 200, `${wheel.filename}: ${res.status}`);
    await res.arrayBuffer();
  });
  const uploads = own.map((wheel) => publish(larder.url, alice, wheel));
  try {
    await Promise.all([...downloads, ...uploads]);
  } finally {
    loading = false;
    await watching;
  }
  seen.push(await nodeConnections());
  assert.ok(seen.length > 1, 'the connections were counted while the requests ran');
  assert.ok(Math.max(...seen) <= POOL, `the node had ${Math.max(...seen)} connections open (${seen.length} samples); the setting is ${POOL}`);
  // The pooled ones stay open while idle: the load took the node to its bound, so the bound is what held it.
  assert.equal(seen.at(-1), POOL, `after the load the node holds ${seen.at(-1)} connections`);
  for (const wheel of own) {
    const res = await fetch(`${larder.url}/simple/${wheel.name}/`);
    assert.equal(res.status, 200, `${wheel.name} was published`);
  }
});
