/**
 * Shared first downloads of a large, slow file (docs/scale-out.md): 40 MB the upstream sends in about 20 s,
 * asked on three larders sharing one database and one bucket, one of them through pip, whose read timeout
 * (15 s) is shorter than the download: one upstream GET, and every client has its first bytes within
 * seconds. Then the downloading node is killed midway: another node resumes the file within seconds.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findClients, makeVenv, requireClients, type Clients } from '../fixtures/clients.js';
import { buildWheel } from '../fixtures/dists.js';
import { eventually } from '../helpers/eventually.js';
import type { TestLarder } from '../helpers/larder.js';
import { type ClientRead, type SharedDownloadPool, sha256, startSharedDownloadPool } from '../helpers/shared-download-pool.js';
import { startRealS3 } from '../helpers/s3-server.js';

const MiB = 1024 * 1024;
const SIZE = 40 * 1000 * 1000;
const RATE = 2 * MiB;
/** "Within seconds": first bytes on every node, and the hand-over after a kill. */
const SECONDS = 5000;

describe('shared first downloads of a 40 MB file at 2 MiB/s', { timeout: 240_000 }, () => {
  let clients: Clients;
  let pool: SharedDownloadPool;
  let nodes: TestLarder[];
  let serial = 0;

  const upstreamWheel = async () => {
    const name = `shared-slow-${++serial}`;
    const dist = await buildWheel(join(pool.tmp, name), { name, version: '1.0', dataFile: { bytes: SIZE, seed: name } });
    pool.upstream.addProject(name, [dist]);
    return { name, dist };
  };

  const assertWhole = (read: ClientRead, expected: string, who: string) => {
    assert.equal(read.status, 200, who);
    assert.equal(read.error, null, who);
    assert.equal(sha256(read.bytes!), expected, who);
  };

  before(async () => {
    clients = await findClients();
    // The slow tier's S3: Ceph's RADOS Gateway.
    pool = await startSharedDownloadPool(startRealS3);
    nodes = await Promise.all([pool.node(), pool.node(), pool.node()]);
  });

  after(async () => {
    await pool?.close();
  });

  test('asked on three nodes (one through pip): one upstream GET, first bytes everywhere within seconds, pip never times out', async (t) => {
    if (!(await requireClients(t, ['python'], clients))) return;
    const venv = await makeVenv(join(pool.tmp, 'venv'), clients.python!);
    const { name, dist } = await upstreamWheel();
    await pool.upstream.setFault({ kind: 'slow', bytesPerSecond: RATE, pathPrefix: '/files/' });
    const [a, b, c] = nodes as [TestLarder, TestLarder, TestLarder];
    const started = performance.now();
    const fromA = pool.read(a.url, name, dist.filename);
    await eventually(() => pool.gets(dist.filename).length === 1, 'A asks the upstream');
    const pip = venv.pip(
      ['download', '--no-deps', '--no-cache-dir', '--dest', join(pool.tmp, 'pip-dest'), '--index-url', `${b.url}/simple/`, `${name}==1.0`],
      {},
      180_000,
    );
    const fromC = pool.read(c.url, name, dist.filename);
    const [readA, readC, pipRun] = await Promise.all([fromA, fromC, pip]);
    t.diagnostic(
      `whole download ${((performance.now() - started) / 1000).toFixed(1)} s; first bytes: A ${readA.firstAfterMs?.toFixed(0)} ms, C ${readC.firstAfterMs?.toFixed(0)} ms`,
    );
    assertWhole(readA, dist.sha256, 'A');
    assertWhole(readC, dist.sha256, 'C');
    assert.ok(readC.firstAfterMs! < SECONDS, `C had its first bytes after ${readC.firstAfterMs} ms`);
    assert.equal(pipRun.code, 0, `${pipRun.stdout}\n${pipRun.stderr}`);
    assert.doesNotMatch(`${pipRun.stdout}\n${pipRun.stderr}`, /timed out|Retrying/i, 'pip never waited out its read timeout');
    assert.equal(sha256(await readFile(join(pool.tmp, 'pip-dest', dist.filename))), dist.sha256);
    assert.equal(pool.gets(dist.filename).length, 1, 'one upstream GET');
    await pool.upstream.setFault(null);
  });

  test('the downloading node killed at a quarter: another resumes it within seconds, with one more (ranged) GET', async (t) => {
    const { name, dist } = await upstreamWheel();
    await pool.upstream.setFault({ kind: 'slow', bytesPerSecond: RATE, pathPrefix: '/files/' });
    const doomed = await pool.child();
    void pool.read(doomed.url, name, dist.filename);
    await eventually(() => (pool.gets(dist.filename)[0]?.bytesSent ?? 0) > SIZE / 4, 'the child node is a quarter into the file', 60_000);
    const asked = performance.now();
    let following = 0;
    const reads = nodes.slice(0, 2).map((node) => pool.read(node.url, name, dist.filename, () => following++));
    await eventually(() => following === 2, 'A and B have their first bytes', SECONDS);
    t.diagnostic(`first bytes on A and B ${(performance.now() - asked).toFixed(0)} ms after asking`);
    await doomed.stop('SIGKILL');
    const killedAt = Date.now();
    await eventually(() => pool.gets(dist.filename).length === 2, 'another node resumes the download', SECONDS);
    const resume = pool.gets(dist.filename)[1]!;
    t.diagnostic(`resumed ${resume.time - killedAt} ms after the kill with ${String(resume.headers.range)}`);
    assert.match(String(resume.headers.range), /^bytes=\d+-$/);
    for (const [i, read] of (await Promise.all(reads)).entries()) assertWhole(read, dist.sha256, `node ${i}`);
    assert.equal(pool.gets(dist.filename).length, 2);
    await eventually(async () => (await pool.partKeys()).length === 0, 'the parts are removed once the blob is in');
    await pool.upstream.setFault(null);
  });
});
