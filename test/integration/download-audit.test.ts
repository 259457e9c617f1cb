/**
 * The download audit on LMDB, through the real server: upstream files (a fake upstream) and private uploads
 * downloaded with fetch (pip: test/e2e/audit-pip.test.ts), then listed by `larder audit fetched` on the data directory: who (a
 * token, a password, anonymous), from where (X-Forwarded-For from a trusted peer only), which versions a
 * requirement matches, --since, and pruning by age as the injected clock moves.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hashToken } from '../../src/auth/tokens.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import type { BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { assertCliOk, runLarderCli } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { publish } from '../helpers/upload-form.js';
import { buildWheelTable } from '../helpers/wheel-table.js';

const DAY = 86_400_000;

/** The rows `audit fetched` prints, as objects by column, without the header. */
function rows(stdout: string): Record<string, string>[] {
  const lines = stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^TIME \(UTC\)\s+CLIENT\s+USER\s+TOKEN\s+PROJECT\s+VERSION\s+FILENAME\s+SHA256$/);
  return lines.slice(1).map((line) => {
    const [date, time, client, user, token, project, version, filename, sha256] = line.split(/\s+/);
    return { time: `${date} ${time}`, client: client!, user: user!, token: token!, project: project!, version: version!, filename: filename!, sha256: sha256! };
  });
}

describe('download audit (LMDB)', () => {
  // Registered before the temp dir's own hook, so the server stops before its data directory goes.
  after(async () => {
    await server?.close();
    await up?.close();
  });
  const dir = suiteTempDir('larder-audit-');
  let up: FakeUpstream;
  let d: Record<'old' | 'patch' | 'next' | 'internal', BuiltDist>;
  let server: TestLarder;
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 9, 30));
  let token: string;

  const fetched = async (requirement: string, ...more: string[]) => {
    const result = await runLarderCli(['audit', 'fetched', requirement, ...more], { env: { LARDER_DATA: server.data } });
    assertCliOk(result);
    return result.stdout;
  };
  const download = async (project: string, dist: BuiltDist, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/packages/${project}/${dist.filename}`, { headers });
    assert.equal(res.status, 200, `${dist.filename}: ${res.status} ${await res.clone().text()}`);
    assert.equal(
      createHash('sha256')
        .update(Buffer.from(await res.arrayBuffer()))
        .digest('hex'),
      dist.sha256,
    );
  };

  before(async () => {
    d = await buildWheelTable(dir, {
      old: ['Lite_LLM', '1.82.0'],
      patch: ['Lite_LLM', '1.82.1'],
      next: ['Lite_LLM', '1.83.0'],
      internal: ['acme-widgets', '1.0'],
    });
    up = await startFakeUpstream();
    up.addProject('lite-llm', [d.old, d.patch, d.next]);
    server = await startLarder({ upstream: up.url, trustedProxies: ['127.0.0.1'] }, join(dir, 'data'), { clock });
    await server.addUser('alice', 'alice-password');
    await server.addUser('bob', 'bob-password');
    token = await server.addToken('bob');
    await publish(server.url, basicAuth('alice', 'alice-password'), d.internal);
  });

  test('who fetched what: a token, a password, anonymous behind a trusted proxy; not HEAD, .metadata or a 304', async () => {
    await download('lite-llm', d.old, { 'X-Forwarded-For': '203.0.113.9, 10.1.1.1' });
    await download('lite-llm', d.next, { Authorization: basicAuth('__token__', token) });
    await download('acme-widgets', d.internal, { Authorization: basicAuth('alice', 'alice-password') });
    // A wrong password does not refuse a read (reads need no credentials here): recorded as anonymous.
    await download('acme-widgets', d.internal, { Authorization: basicAuth('alice', 'wrong-password') });
    // Served but no download: HEAD, the .metadata, a 304.
    assert.equal((await fetch(`${server.url}/packages/lite-llm/${d.old.filename}`, { method: 'HEAD' })).status, 200);
    assert.equal((await fetch(`${server.url}/packages/lite-llm/${d.old.filename}.metadata`)).status, 200);
    const etag = (await fetch(`${server.url}/packages/lite-llm/${d.old.filename}`, { method: 'HEAD' })).headers.get('etag')!;
    assert.equal((await fetch(`${server.url}/packages/lite-llm/${d.old.filename}`, { headers: { 'If-None-Match': etag } })).status, 304);
    const ranged = await fetch(`${server.url}/packages/lite-llm/${d.old.filename}`, { headers: { Range: 'bytes=0-9' } });
    assert.equal(ranged.status, 206);
    await ranged.arrayBuffer();

    await server.larder.audit!.flush();

    const lite = rows(await fetched('LITE.llm==1.82.*'));
    assert.deepEqual(
      lite.map((r) => [r.client, r.user, r.token, r.project, r.version, r.filename]),
      [
        ['203.0.113.9', 'anonymous', '-', 'lite-llm', '1.82.0', d.old.filename],
        // The 206 (a range) is a download too.
        ['127.0.0.1', 'anonymous', '-', 'lite-llm', '1.82.0', d.old.filename],
      ],
    );
    assert.equal(lite[0]!.time, '2026-03-01 09:30:00');
    assert.equal(lite[0]!.sha256, d.old.sha256);
    const next = rows(await fetched('lite_llm>=1.83'));
    assert.deepEqual(
      next.map((r) => [r.user, r.token, r.version, r.sha256]),
      [['bob', hashToken(token).slice(0, 12), '1.83.0', d.next.sha256]],
    );
    const internal = rows(await fetched('Acme.Widgets'));
    assert.deepEqual(
      internal.map((r) => [r.client, r.user, r.token, r.version, r.sha256]),
      [
        ['127.0.0.1', 'alice', '-', '1.0', d.internal.sha256],
        ['127.0.0.1', 'anonymous', '-', '1.0', d.internal.sha256],
      ],
    );
    assert.deepEqual(
      rows(await fetched('lite*>=1.83')).map((r) => r.version),
      ['1.83.0'],
      'a glob names several projects',
    );
    assert.equal(await fetched('lite-llm<1.82'), 'no recorded downloads of lite-llm<1.82\n');
    assert.equal(await fetched('other-project'), 'no recorded downloads of other-project\n');
  });

  test('--since takes a date or a date-time; records older than the retention are pruned as the clock moves', async () => {
    clock.advance(2 * DAY);
    await download('lite-llm', d.patch);
    await server.larder.audit!.flush();
    assert.deepEqual(
      rows(await fetched('lite-llm', '--since', '2026-03-02')).map((r) => [r.time, r.version]),
      [['2026-03-03 09:30:00', '1.82.1']],
    );
    assert.equal(rows(await fetched('lite-llm', '--since', '2026-03-01T09:30Z')).length, 4);
    assert.equal(await fetched('lite-llm', '--since', '2026-03-03T09:30:01'), 'no recorded downloads of lite-llm since 2026-03-03T09:30:01.000Z\n');
    for (const bad of ['yesterday', '2026-02-30', '03/01/2026']) {
      const refused = await runLarderCli(['audit', 'fetched', 'lite-llm', '--since', bad], { env: { LARDER_DATA: server.data } });
      assert.equal(refused.code, 2, bad);
      assert.match(refused.stderr, /is not a date such as 2026-03-01/);
    }
    const badRequirement = await runLarderCli(['audit', 'fetched', 'lite-llm[extra]>=1'], { env: { LARDER_DATA: server.data } });
    assert.equal(badRequirement.code, 2);

    // 90 days (the default retention) after the first downloads, the next write prunes them.
    clock.advance(89 * DAY);
    await download('acme-widgets', d.internal);
    await server.larder.audit!.flush();
    assert.deepEqual(
      rows(await fetched('lite-llm')).map((r) => r.time),
      ['2026-03-03 09:30:00'],
    );
    assert.deepEqual(
      rows(await fetched('acme-widgets')).map((r) => r.time),
      ['2026-05-31 09:30:00'],
    );
  });
});

describe('download audit with read authentication, behind a proxy larder does not trust', () => {
  after(async () => {
    await server?.close();
    await up?.close();
  });
  const dir = suiteTempDir('larder-audit-auth-');
  let up: FakeUpstream;
  let server: TestLarder;
  let wheel: BuiltDist;

  before(async () => {
    ({ wheel } = await buildWheelTable(dir, { wheel: ['lite-llm', '1.82.3'] }));
    up = await startFakeUpstream();
    up.addProject('lite-llm', [wheel]);
    server = await startLarder({ upstream: up.url, readAuth: true, trustedProxies: ['10.0.0.0/8', 'fd00::/8'] }, join(dir, 'data'));
    await server.addUser('bob', 'bob-password');
  });

  test("a token's download is the token's user's; X-Forwarded-For from an untrusted peer is ignored", async () => {
    const token = await server.addToken('bob');
    const url = `${server.url}/packages/lite-llm/${wheel.filename}`;
    assert.equal((await fetch(url, { headers: { 'X-Forwarded-For': '203.0.113.9' } })).status, 401);
    const res = await fetch(url, { headers: { Authorization: basicAuth('__token__', token), 'X-Forwarded-For': '203.0.113.9' } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    await server.larder.audit!.flush();
    const result = await runLarderCli(['audit', 'fetched', 'lite-llm==1.82.3'], { env: { LARDER_DATA: server.data } });
    assertCliOk(result);
    assert.deepEqual(
      rows(result.stdout).map((r) => [r.client, r.user, r.token, r.filename]),
      [['127.0.0.1', 'bob', hashToken(token).slice(0, 12), wheel.filename]],
    );
  });

  test('LARDER_AUDIT=false records nothing', async () => {
    const quiet = await startLarder({ upstream: up.url, audit: false }, join(dir, 'quiet'));
    try {
      assert.equal(quiet.larder.audit, null);
      const res = await fetch(`${quiet.url}/packages/lite-llm/${wheel.filename}`);
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      assert.deepEqual(await quiet.larder.storage.audit.downloads({ since: 0, limit: 10 }), []);
    } finally {
      await quiet.close();
    }
  });

  test('what is waiting is written when the server stops', async () => {
    const data = join(dir, 'stopping');
    // Records would wait an hour: only the stop writes this one.
    const node = await startLarder({ upstream: up.url }, data, { auditFlushMs: 3_600_000 });
    const res = await fetch(`${node.url}/packages/lite-llm/${wheel.filename}`);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.equal(node.larder.audit!.pendingCount(), 1, 'not written yet');
    await node.stop();
    const storage = openStorage(data);
    try {
      assert.deepEqual(
        (await storage.audit.downloads({ since: 0, limit: 10 })).map((r) => [r.user, r.filename]),
        [['anonymous', wheel.filename]],
      );
    } finally {
      await storage.close();
    }
  });
});
