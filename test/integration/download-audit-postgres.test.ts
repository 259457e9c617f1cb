/**
 * The download audit on PostgreSQL: two larder nodes on one database each serve downloads (an upstream file
 * from a fake upstream, a private upload); `larder audit fetched` against the shared database, from a third
 * data directory, lists them all.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { assertCliOk, runLarderCli } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { publish } from '../helpers/upload-form.js';
import { buildWheelTable } from '../helpers/wheel-table.js';

// Registered before the temp dir's own hook, so the nodes stop before their data directories go.
after(async () => {
  for (const node of nodes) await node.close();
  await up?.close();
  await database?.cleanup();
});

const dir = suiteTempDir('larder-audit-pg-');
let database: TestPostgres;
let url: string;
let up: FakeUpstream;
let nodes: TestLarder[] = [];
let d: Record<'one' | 'two' | 'internal', BuiltDist>;

before(async () => {
  d = await buildWheelTable(dir, { one: ['shared-lib', '1.0'], two: ['shared-lib', '2.0'], internal: ['acme-tool', '0.1'] });
  up = await startFakeUpstream();
  up.addProject('shared-lib', [d.one, d.two]);
  database = await startPostgres();
  url = await database.createDatabase();
  nodes = [
    await startLarder({ upstream: up.url, databaseUrl: url }, join(dir, 'node1')),
    await startLarder({ upstream: up.url, databaseUrl: url }, join(dir, 'node2')),
  ];
  await nodes[0]!.addUser('alice', 'alice-password');
});

const get = async (node: TestLarder, path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${node.url}${path}`, { headers });
  assert.equal(res.status, 200, path);
  await res.arrayBuffer();
};

test('downloads on either node are listed by the CLI against the shared database', async () => {
  const [node1, node2] = nodes as [TestLarder, TestLarder];
  await publish(node1.url, basicAuth('alice', 'alice-password'), d.internal);
  await get(node1, `/packages/shared-lib/${d.one.filename}`, { Authorization: basicAuth('alice', 'alice-password') });
  await get(node1, `/packages/acme-tool/${d.internal.filename}`);
  await get(node2, `/packages/shared-lib/${d.two.filename}`);
  await node1.larder.audit!.flush();
  await node2.larder.audit!.flush();

  const env = { LARDER_DATA: join(dir, 'cli'), LARDER_DATABASE_URL: url };
  const shared = await runLarderCli(['audit', 'fetched', 'Shared_Lib'], { env });
  assertCliOk(shared);
  const lines = shared.stdout.trimEnd().split('\n').slice(1);
  assert.deepEqual(
    lines.map((line) => line.split(/\s+/).slice(3, 9)),
    [
      ['alice', '-', 'shared-lib', '1.0', d.one.filename, d.one.sha256],
      ['anonymous', '-', 'shared-lib', '2.0', d.two.filename, d.two.sha256],
    ],
  );
  const older = await runLarderCli(['audit', 'fetched', 'shared-lib<2'], { env });
  assert.equal(older.stdout.trimEnd().split('\n').length, 2, older.stdout);
  const internal = await runLarderCli(['audit', 'fetched', 'acme-tool==0.1'], { env });
  assert.match(
    internal.stdout.split('\n')[1]!,
    new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+127\\.0\\.0\\.1\\s+anonymous\\s+-\\s+acme-tool\\s+0\\.1\\s+${d.internal.filename}`),
  );
});
