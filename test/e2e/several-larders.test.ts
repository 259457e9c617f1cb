/**
 * Several larders on one PostgreSQL database and one S3 bucket (docs/scale-out.md): the suite starts a
 * real PostgreSQL (Debian's binaries) and a real S3 (Ceph's RADOS Gateway), runs two larders in this process and a
 * third as a child it can kill, and drives them with twine, pip and raw HTTP. Every stored object's bytes
 * are checked against the sha256 its key names.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pgDriver from 'pg';
import type { Settings } from '../../src/config/schema.js';
import { findClients, makeVenv, pipInstall, requireClients, twineUpload, type Clients, type CommandResult, type Venv } from '../fixtures/clients.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { runLarderCli } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { mirrorSetRecord } from '../helpers/mirror-set-records.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { exportTestCredentials, startRealS3, type TestS3Server } from '../helpers/s3-server.js';
import { uploadForm } from '../helpers/upload-form.js';

const JSON_PAGE = { Accept: 'application/vnd.pypi.simple.v1+json' };
const output = (r: CommandResult) => `${r.stdout}\n${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '').replace(/\s+/g, ' ');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function pageFiles(base: string, project: string): Promise<string[]> {
  const res = await fetch(`${base}/simple/${project}/`, { headers: JSON_PAGE });
  if (res.status === 404) return [];
  assert.equal(res.status, 200, `${base}/simple/${project}/ answered ${res.status}`);
  return ((await res.json()) as { files: { filename: string }[] }).files.map((f) => f.filename);
}

async function fileBytes(base: string, project: string, filename: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(`${base}/packages/${project}/${filename}`);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function upload(base: string, dist: BuiltDist, auth: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}/legacy/`, { method: 'POST', headers: { Authorization: auth }, body: await uploadForm(dist) });
  return { status: res.status, text: `${res.statusText} ${await res.text()}` };
}

/** Polls until `check` holds; returns how long that took. */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('several larders on one database and one bucket', () => {
  let clients: Clients;
  let tmp: string;
  let pg: TestPostgres;
  let s3: TestS3Server;
  let bucket: string;
  let upstream: FakeUpstream;
  let shared: Partial<Settings>;
  let a: TestLarder;
  let b: TestLarder;
  let venv: Venv | null = null;
  const alice = basicAuth('alice', 'alice-password-1');

  /** Every object in the bucket holds exactly the bytes its content-addressed key names. */
  const assertObjectsWhole = async () => {
    const objects = await s3.objects(bucket);
    for (const [key, bytes] of objects) {
      const name = key.split('/').at(-1)!;
      if (/^[0-9a-f]{64}$/.test(name)) assert.equal(sha256(bytes), name, `object ${key} holds other bytes than its name says`);
    }
    return objects;
  };

  /** Whether the shared database holds a record of the file, whatever any node's view shows yet. */
  const recordInDatabase = async (filename: string) => {
    const client = new pgDriver.Client({ connectionString: shared.databaseUrl! });
    await client.connect();
    try {
      return (await client.query('SELECT 1 FROM files WHERE filename = $1', [filename])).rowCount === 1;
    } finally {
      await client.end();
    }
  };

  const wheel = (name: string, version: string, value: string, extra: Partial<Parameters<typeof buildWheel>[1]> = {}) =>
    buildWheel(join(tmp, `${name}-${version}-${value}`), {
      name,
      version,
      modules: { [`${name.replace(/-/g, '_')}/__init__.py`]: `VALUE = ${JSON.stringify(value)}\n` },
      ...extra,
    });

  before(async () => {
    clients = await findClients();
    tmp = await mkdtemp(join(tmpdir(), 'larder-ha-'));
    [pg, s3, upstream] = await Promise.all([startPostgres(), startRealS3(), startFakeUpstream()]);
    bucket = await s3.createBucket();
    exportTestCredentials();
    shared = {
      databaseUrl: await pg.createDatabase(),
      blobStore: `s3://${bucket}/larder`,
      s3Endpoint: s3.endpoint,
      s3Region: s3.credentials.region,
      upstream: upstream.url,
      sessionSecret: 'a secret every node of the test shares',
    };
    // Both start at once on an empty database: the schema migrations run once, whoever comes first.
    [a, b] = await Promise.all([startLarder(shared), startLarder(shared)]);
    await a.addUser('alice', 'alice-password-1');
    if (clients.python) venv = await makeVenv(join(tmp, 'venv'), clients.python);
  });

  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([pg?.cleanup(), s3?.close(), upstream?.close()]);
    await rm(tmp, { recursive: true, force: true });
  });

  test('an upload on A is on B within 1 s and installs with pip from B', async (t) => {
    if (!(await requireClients(t, ['twine', 'python'], clients))) return;
    const dist = await wheel('ha-first', '1.0', 'from A');
    const r = await twineUpload(`${a.url}/legacy/`, [dist.path], { username: 'alice', password: 'alice-password-1', twine: clients.twine!, timeoutMs: 60_000 });
    assert.equal(r.code, 0, output(r));
    const took = await within(1000, 'the upload shows on B', async () => (await pageFiles(b.url, 'ha-first')).includes(dist.filename));
    t.diagnostic(`visible on B after ${took.toFixed(0)} ms`);
    const pip = await pipInstall(venv!, `${b.url}/simple/`, ['ha-first==1.0']);
    assert.equal(pip.code, 0, output(pip));
    const run = await venv!.run(['-c', 'import ha_first; print(ha_first.VALUE)']);
    assert.equal(run.stdout.trim(), 'from A');
    await assertObjectsWhole();
  });

  test('a token created on A works on B', async () => {
    const token = await a.addToken('alice', ['ha-token']);
    const res = await upload(b.url, await wheel('ha-token', '1.0', 'token'), basicAuth('__token__', token));
    assert.equal(res.status, 200, res.text);
  });

  test('a web login on A is a session on B (LARDER_SESSION_SECRET), and a logout on B ends it on A', async () => {
    const res = await fetch(`${a.url}/account/login/`, {
      method: 'POST',
      body: new URLSearchParams({ username: 'alice', password: 'alice-password-1', next: '/help/' }),
      redirect: 'manual',
    });
    assert.equal(res.status, 303);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    const page = await (await fetch(`${b.url}/help/`, { headers: { Cookie: cookie } })).text();
    assert.ok(page.includes('Logged in as <strong>alice</strong>'), 'B accepts the session A signed');
    const out = await fetch(`${b.url}/account/logout/`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ csrf: /name="csrf" value="([^"]+)"/.exec(page)![1]! }),
      redirect: 'manual',
    });
    assert.equal(out.status, 303);
    await within(1000, 'A refuses the cookie logged out on B', async () => {
      const again = await (await fetch(`${a.url}/help/`, { headers: { Cookie: cookie } })).text();
      return !again.includes('Logged in as');
    });
  });

  test('the same file name uploaded to A and B at once: exactly one wins, and both serve its bytes', async () => {
    const ours = await wheel('ha-race', '1.0', 'ours');
    const theirs = await wheel('ha-race', '1.0', 'theirs');
    assert.equal(ours.filename, theirs.filename);
    assert.notEqual(ours.sha256, theirs.sha256);
    const results = await Promise.all([upload(a.url, ours, alice), upload(b.url, theirs, alice)]);
    const won = results.map((r) => r.status === 200);
    assert.equal(won.filter(Boolean).length, 1, `exactly one upload wins: ${JSON.stringify(results)}`);
    const loser = results[won.indexOf(false)]!;
    assert.equal(loser.status, 409, loser.text);
    assert.match(loser.text, /already exists/i);
    const winner = won[0] ? ours : theirs;
    for (const node of [a, b]) {
      const got = await fileBytes(node.url, 'ha-race', winner.filename);
      assert.equal(got.status, 200);
      assert.equal(sha256(got.bytes), winner.sha256, `${node.url} serves the winner's bytes`);
    }
    await assertObjectsWhole();
  });

  test('an upstream file asked of A and B at once is downloaded from the upstream once, then served by both', async () => {
    const dist = await wheel('ha-upstream', '2.0', 'upstream', { dataFile: { bytes: 3 * 1024 * 1024 } });
    upstream.addProject('ha-upstream', [dist]);
    await upstream.setFault({ kind: 'slow', bytesPerSecond: 4 * 1024 * 1024, pathPrefix: '/files/', count: 1 });
    const before = upstream.requests.filter((r) => r.path.includes(dist.filename)).length;
    const [fromA, fromB] = await Promise.all([fileBytes(a.url, 'ha-upstream', dist.filename), fileBytes(b.url, 'ha-upstream', dist.filename)]);
    assert.equal(fromA.status, 200);
    assert.equal(fromB.status, 200);
    assert.equal(sha256(fromA.bytes), dist.sha256);
    assert.equal(sha256(fromB.bytes), dist.sha256);
    const downloads = upstream.requests.filter((r) => r.path.includes(dist.filename)).length - before;
    assert.equal(downloads, 1, 'one node downloaded, the other waited for its blob');
    const objects = await assertObjectsWhole();
    assert.ok(
      [...objects.keys()].some((key) => key.endsWith(dist.sha256)),
      'the verified file is in the bucket',
    );
  });

  test('/health reports each backend and /metrics their latencies', async () => {
    const health = await fetch(`${b.url}/health`);
    assert.equal(health.status, 200);
    const body = (await health.json()) as { status: string; backends: Record<string, { kind: string; status: string }> };
    assert.equal(body.status, 'ok');
    assert.equal(body.backends.database?.kind, 'postgresql');
    assert.equal(body.backends.blobs?.kind, 's3');
    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    assert.match(metrics, /larder_backend_request_duration_seconds_count\{backend="database",operation="[^"]+"\} \d+/);
    assert.match(metrics, /larder_backend_request_duration_seconds_count\{backend="blobs",operation="[^"]+"\} \d+/);
  });

  test('kill -9 of a node during uploads: the others serve everything, nothing is half-visible', async (t) => {
    const env: Record<string, string> = {
      LARDER_DATA: await mkdtemp(join(tmp, 'node-c-')),
      LARDER_DATABASE_URL: shared.databaseUrl!,
      LARDER_BLOB_STORE: shared.blobStore!,
      LARDER_S3_ENDPOINT: shared.s3Endpoint!,
      LARDER_S3_REGION: shared.s3Region!,
      LARDER_UPSTREAM: 'none',
      LARDER_LOG_LEVEL: 'info',
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    };
    const big = await wheel('ha-crash', '1.0', 'big', { dataFile: { bytes: 24 * 1024 * 1024 } });
    const form = await uploadForm(big);
    const body = Buffer.from(await new Response(form).arrayBuffer());
    const contentType = new Response(form).headers.get('content-type')!;
    // Killed part-way through the body, then right after its last byte (while the node stores it).
    for (const cutAt of [Math.floor(body.length / 2), body.length]) {
      const c: ChildServer = await startChildServer([], env);
      try {
        await new Promise<void>((resolve) => {
          const url = new URL(`${c.url}/legacy/`);
          const req = httpRequest(url, { method: 'POST', headers: { Authorization: alice, 'Content-Type': contentType, 'Content-Length': body.length } });
          req.on('error', () => resolve());
          req.on('response', () => resolve());
          req.write(body.subarray(0, cutAt), () => {
            void c.stop('SIGKILL').then(() => resolve());
          });
        });
      } finally {
        if (c.alive()) await c.stop('SIGKILL');
      }
      const recorded = await recordInDatabase(big.filename);
      t.diagnostic(`killed after ${cutAt} of ${body.length} bytes: ${recorded ? 'the record was written' : 'no record'}`);
      if (recorded) {
        // The record was written: B sees it within its 1 s, and the whole file must be there.
        await within(1000, `B lists ${big.filename}`, async () => (await pageFiles(b.url, 'ha-crash')).includes(big.filename));
        const got = await fileBytes(b.url, 'ha-crash', big.filename);
        assert.equal(got.status, 200);
        assert.equal(sha256(got.bytes), big.sha256);
      }
      await assertObjectsWhole();
    }
    const again = await upload(b.url, big, alice);
    assert.ok(again.status === 200, again.text);
    // Another node sees a change within 1 s, not at once (docs/scale-out.md).
    await within(1000, `A lists ${big.filename}`, async () => (await pageFiles(a.url, 'ha-crash')).includes(big.filename));
    const got = await fileBytes(a.url, 'ha-crash', big.filename);
    assert.equal(got.status, 200);
    assert.equal(sha256(got.bytes), big.sha256);
    assert.ok((await stat(big.path)).size > 20 * 1024 * 1024);
  });

  test('LARDER_S3_REDIRECT: file downloads go to presigned bucket URLs, which pip follows', async (t) => {
    if (!(await requireClients(t, ['python'], clients))) return;
    const redirecting = await startLarder({ ...shared, s3Redirect: true });
    try {
      const dist = await wheel('ha-redirect', '1.0', 'redirected');
      assert.equal((await upload(redirecting.url, dist, alice)).status, 200);
      const res = await fetch(`${redirecting.url}/packages/ha-redirect/${dist.filename}`, { redirect: 'manual' });
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get('location')!);
      assert.equal(location.origin, new URL(s3.endpoint).origin, 'the client is sent to the bucket');
      assert.ok(location.searchParams.get('X-Amz-Signature'), 'a presigned URL');
      const direct = await fetch(location);
      assert.equal(direct.status, 200);
      assert.equal(sha256(Buffer.from(await direct.arrayBuffer())), dist.sha256);
      assert.match(direct.headers.get('content-disposition') ?? '', new RegExp(dist.filename.replace(/\./g, '\\.')));
      const head = await fetch(`${redirecting.url}/packages/ha-redirect/${dist.filename}`, { method: 'HEAD', redirect: 'manual' });
      assert.equal(head.status, 200, 'HEAD is answered by larder (a presigned GET URL does not take HEAD)');
      assert.equal(Number(head.headers.get('content-length')), dist.size);
      const pip = await pipInstall(venv!, `${redirecting.url}/simple/`, ['ha-redirect==1.0']);
      assert.equal(pip.code, 0, output(pip));
      const run = await venv!.run(['-c', 'import ha_redirect; print(ha_redirect.VALUE)']);
      assert.equal(run.stdout.trim(), 'redirected');
    } finally {
      await redirecting.close();
    }
  });

  test('larder migrate moves a single larder into the database and the bucket; a node on them serves it all', async () => {
    const single = await startLarder({ upstream: null });
    const dist = await wheel('ha-migrated', '1.0', 'migrated');
    const mirrorSet = mirrorSetRecord('site', [{ project: 'ha-migrated-dep', filename: 'ha_migrated_dep-1.0-py3-none-any.whl' }]);
    let token: string;
    try {
      await single.addUser('carol', 'carol-password-1');
      token = await single.addToken('carol');
      assert.equal((await upload(single.url, dist, basicAuth('carol', 'carol-password-1'))).status, 200);
      await single.larder.storage.mirrorSets.put(mirrorSet);
    } finally {
      await single.stop();
    }
    const databaseUrl = await pg.createDatabase();
    const target = await s3.createBucket();
    const env = {
      LARDER_DATA: single.data,
      LARDER_S3_ENDPOINT: s3.endpoint,
      LARDER_S3_REGION: s3.credentials.region,
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    };
    const run = await runLarderCli(['migrate', '--to', databaseUrl, '--blobs', `s3://${target}/moved`, '--verify'], { env });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /check passed/);
    assert.match(run.stdout, /mirror sets: added 1 set;/);
    const again = await runLarderCli(['migrate', '--to', databaseUrl, '--blobs', `s3://${target}/moved`], { env });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /nothing to add/);
    const node = await startLarder({ databaseUrl, blobStore: `s3://${target}/moved`, s3Endpoint: s3.endpoint, s3Region: s3.credentials.region });
    try {
      assert.deepEqual(await pageFiles(node.url, 'ha-migrated'), [dist.filename]);
      assert.deepEqual(await node.larder.storage.mirrorSets.get('site'), mirrorSet, "the mirror set is shared: every node's eviction spares its files");
      const got = await fileBytes(node.url, 'ha-migrated', dist.filename);
      assert.equal(got.status, 200);
      assert.equal(sha256(got.bytes), dist.sha256);
      const next = await upload(node.url, await wheel('ha-migrated', '2.0', 'after'), basicAuth('__token__', token));
      assert.equal(next.status, 200, `the token made before the move still works: ${next.text}`);
    } finally {
      await node.close();
      await rm(single.data, { recursive: true, force: true });
    }
    for (const [key, bytes] of await s3.objects(target)) {
      const name = key.split('/').at(-1)!;
      if (/^[0-9a-f]{64}$/.test(name)) assert.equal(sha256(bytes), name);
    }
  });

  test('the database restarts: reads go on, changes get 503 with a message, and the nodes recover by themselves', async () => {
    const before = await wheel('ha-restart', '1.0', 'before');
    assert.equal((await upload(a.url, before, alice)).status, 200);
    await within(1000, 'B sees the first upload', async () => (await pageFiles(b.url, 'ha-restart')).includes(before.filename));
    await pg.stop();
    try {
      assert.deepEqual(await pageFiles(b.url, 'ha-restart'), [before.filename], 'pages come from the node');
      const file = await fileBytes(b.url, 'ha-restart', before.filename);
      assert.equal(file.status, 200);
      assert.equal(sha256(file.bytes), before.sha256);
      const refused = await upload(b.url, await wheel('ha-restart', '2.0', 'refused'), alice);
      assert.equal(refused.status, 503, refused.text);
      assert.match(refused.text, /database/i);
      const health = (await (await fetch(`${b.url}/health`)).json()) as { status: string; backends: Record<string, { status: string }> };
      assert.equal(health.status, 'degraded');
      assert.equal(health.backends.database?.status, 'down');
    } finally {
      await pg.start();
    }
    const later = await wheel('ha-restart', '3.0', 'after');
    await within(15_000, 'B takes uploads again', async () => (await upload(b.url, later, alice)).status === 200);
    await within(2000, 'A sees the upload made on B after the restart', async () => (await pageFiles(a.url, 'ha-restart')).includes(later.filename));
  });
});
