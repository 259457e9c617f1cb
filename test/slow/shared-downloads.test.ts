/**
 * Shared first downloads across nodes (docs/scale-out.md, "Upstream files: one download across nodes"):
 * three larders on one database and one bucket before an upstream that sends files slowly and answers
 * ranges. One node downloads; the others' clients follow its parts before the upstream has finished; a
 * killed or failing downloader is taken over from where its parts end. The nodes' wait bound is set far
 * beyond the tests' own, so a download completed here was handed over, not waited out.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { S3BlobStore } from '../../src/store/s3/s3-blob-store.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { eventually } from '../helpers/eventually.js';
import type { TestLarder } from '../helpers/larder.js';
import { startRealS3 } from '../helpers/s3-server.js';
import { type ClientRead, type SharedDownloadPool, sha256, startSharedDownloadPool } from '../helpers/shared-download-pool.js';

const MiB = 1024 * 1024;

function assertWhole(read: ClientRead, dist: BuiltDist, who: string): void {
  assert.equal(read.status, 200, `${who}: status`);
  assert.equal(read.error, null, `${who}: the body broke off`);
  assert.equal(read.bytes?.length, dist.size, `${who}: size`);
  assert.equal(sha256(read.bytes!), dist.sha256, `${who}: bytes`);
}

/** The offset a ranged GET asked from, or null for a whole GET. */
const rangeFrom = (headers: Record<string, unknown>) => {
  const m = /^bytes=(\d+)-$/.exec(String(headers.range ?? ''));
  return m ? Number(m[1]) : null;
};

describe('shared first downloads across nodes', { timeout: 120_000 }, () => {
  let pool: SharedDownloadPool;
  let a: TestLarder;
  let b: TestLarder;
  let c: TestLarder;
  let serial = 0;

  /** A wheel of `bytes` (mostly incompressible data) the upstream lists under its own project. */
  const upstreamWheel = async (bytes: number) => {
    const name = `shared-dl-${++serial}`;
    const dist = await buildWheel(join(pool.tmp, name), { name, version: '1.0', dataFile: { bytes, seed: name } });
    pool.upstream.addProject(name, [dist]);
    return { name, dist };
  };

  /** Parts at their offsets, as a holder that ended without the blob leaves them. */
  const leaveParts = async (sha: string, parts: [number, Uint8Array][]) => {
    const store = new S3BlobStore({
      location: pool.shared.blobStore!,
      endpoint: pool.s3.endpoint,
      region: pool.s3.credentials.region,
      dataDir: pool.tmp,
      redirect: false,
    });
    try {
      for (const [offset, bytes] of parts) await store.parts!.put(sha, offset, bytes);
    } finally {
      store.close();
    }
  };

  before(async () => {
    pool = await startSharedDownloadPool(startRealS3);
    // A gives up on a silent upstream after 1.5 s (the failing-holder tests make it the holder).
    [a, b, c] = await Promise.all([pool.node({ upstreamBodyTimeout: 1500 }), pool.node(), pool.node()]);
  });

  after(async () => {
    await pool?.close();
  });

  test('a slow file asked on three nodes: one upstream GET, every client has bytes before the upstream has sent the file, all identical', async (t) => {
    const { name, dist } = await upstreamWheel(6 * MiB);
    await pool.upstream.setFault({ kind: 'slow', bytesPerSecond: MiB, pathPrefix: '/files/' });
    const first = pool.read(a.url, name, dist.filename);
    await eventually(() => pool.gets(dist.filename).length === 1, 'A asks the upstream', 30_000);
    const [fromA, fromB, fromC] = await Promise.all([first, pool.read(b.url, name, dist.filename), pool.read(c.url, name, dist.filename)]);
    for (const [who, read] of [
      ['A', fromA],
      ['B', fromB],
      ['C', fromC],
    ] as const) {
      assertWhole(read, dist, who);
      t.diagnostic(`${who}: first bytes when the upstream had sent ${read.upstreamSentAtFirst} of ${dist.size}`);
      assert.ok(
        read.upstreamSentAtFirst! < dist.size,
        `${who} had its first bytes while the upstream was still sending (${read.upstreamSentAtFirst} of ${dist.size})`,
      );
    }
    assert.equal(pool.gets(dist.filename).length, 1, 'one upstream GET across the nodes');
    await eventually(async () => (await pool.partKeys()).length === 0, 'the parts are removed once the blob is in', 30_000);
    const objects = await pool.s3.objects(pool.bucket);
    assert.equal(sha256(objects.get(`larder/sha256/${dist.sha256.slice(0, 2)}/${dist.sha256}`)!), dist.sha256, 'the blob is whole');
    await pool.upstream.setFault(null);
  });

  test('the downloading node killed midway: a follower takes over from its parts with a Range request, every surviving client gets the file', async (t) => {
    const { name, dist } = await upstreamWheel(6 * MiB);
    await pool.upstream.setFault({ kind: 'slow', bytesPerSecond: MiB, pathPrefix: '/files/' });
    const doomed = await pool.child();
    const onDoomed = pool.read(doomed.url, name, dist.filename);
    await eventually(() => (pool.gets(dist.filename)[0]?.bytesSent ?? 0) > 1.5 * MiB, 'the child node is well into the file', 30_000);
    let following = 0;
    const reads = [a, b].map((node) => pool.read(node.url, name, dist.filename, () => following++));
    await eventually(() => following === 2, 'A and B follow the child node', 30_000);
    t.diagnostic(`killed when the upstream had sent ${pool.gets(dist.filename)[0]!.bytesSent} of ${dist.size}`);
    await doomed.stop('SIGKILL');
    const [fromA, fromB] = (await Promise.all(reads)) as [ClientRead, ClientRead];
    assertWhole(fromA, dist, 'A');
    assertWhole(fromB, dist, 'B');
    assert.ok((await onDoomed).error !== null || (await onDoomed).status !== 200, "the killed node's client did not get a whole file");
    const gets = pool.gets(dist.filename);
    assert.equal(gets.length, 2, 'the killed GET and one resume');
    const from = rangeFrom(gets[1]!.headers);
    assert.ok(from !== null && from > MiB, `the resume asks from where the parts end (range ${String(gets[1]!.headers.range)})`);
    assert.equal(gets[1]!.status, 206);
    await eventually(async () => (await pool.partKeys()).length === 0, 'the parts are removed once the blob is in', 30_000);
    await pool.upstream.setFault(null);
  });

  test("the downloading node's upstream falls silent: it gives up, a follower resumes the file from the parts", async () => {
    const { name, dist } = await upstreamWheel(3 * MiB);
    await pool.upstream.setFault([
      { kind: 'hang', afterBytes: 2 * MiB, pathPrefix: '/files/', count: 1 },
      { kind: 'slow', bytesPerSecond: 2 * MiB, pathPrefix: '/files/' },
    ]);
    const onA = pool.read(a.url, name, dist.filename);
    await eventually(() => pool.gets(dist.filename).length === 1, 'A asks the upstream', 30_000);
    const reads = [b, c].map((node) => pool.read(node.url, name, dist.filename));
    const [fromB, fromC] = (await Promise.all(reads)) as [ClientRead, ClientRead];
    assertWhole(fromB, dist, 'B');
    assertWhole(fromC, dist, 'C');
    assert.notEqual((await onA).error, null, "A's own client gets a broken body, not a whole file");
    const gets = pool.gets(dist.filename);
    assert.equal(gets.length, 2);
    // The holder's parts hold what it received but the last byte (held back, as from every reader, until the file is whole).
    assert.equal(rangeFrom(gets[1]!.headers), 2 * MiB - 1, 'resumed from the bytes the silent upstream sent');
    await pool.upstream.setFault(null);
  });

  test('the upstream fails for whoever takes over too: every client gets an error, none waits', async () => {
    const { name, dist } = await upstreamWheel(3 * MiB);
    await pool.upstream.setFault([
      { kind: 'hang', afterBytes: MiB, pathPrefix: '/files/', count: 1 },
      { kind: 'status500', pathPrefix: '/files/' },
    ]);
    const onA = pool.read(a.url, name, dist.filename);
    await eventually(() => pool.gets(dist.filename).length === 1, 'A asks the upstream', 30_000);
    const reads = await Promise.all([onA, pool.read(b.url, name, dist.filename), pool.read(c.url, name, dist.filename)]);
    for (const read of reads) assert.ok(read.status !== 200 || read.error !== null, `no whole file: ${JSON.stringify({ ...read, bytes: read.bytes?.length })}`);
    await pool.upstream.setFault(null);
    const again = await pool.read(b.url, name, dist.filename);
    assertWhole(again, dist, 'B, once the upstream is back');
  });

  test('parts of wrong bytes left in the bucket: the download resumed from them fails verification, its client never gets a whole file, and the parts go', async () => {
    const { name, dist } = await upstreamWheel(2 * MiB);
    await leaveParts(dist.sha256, [[0, randomBytes(MiB)]]);
    const resumed = await pool.read(a.url, name, dist.filename);
    assert.ok(resumed.status !== 200 || resumed.error !== null, 'the client of the wrong bytes gets no whole file');
    assert.equal(rangeFrom(pool.gets(dist.filename)[0]!.headers), MiB, 'the download resumed after the part');
    await eventually(async () => (await pool.partKeys()).length === 0, 'the wrong parts are removed', 30_000);
    assertWhole(await pool.read(b.url, name, dist.filename), dist, 'B, afterwards');
    assert.equal(rangeFrom(pool.gets(dist.filename)[1]!.headers), null, 'downloaded from the start');
  });

  test('a follower that was sent wrong bytes from the parts: its client gets a broken body, never a whole file, though the file downloaded after is right', async () => {
    const { name, dist } = await upstreamWheel(2 * MiB);
    await leaveParts(dist.sha256, [[0, randomBytes(MiB)]]);
    await pool.upstream.setFault({ kind: 'slow', bytesPerSecond: MiB, pathPrefix: '/files/' });
    const onA = pool.read(a.url, name, dist.filename);
    await eventually(() => pool.gets(dist.filename).length === 1, 'A resumes after the wrong part', 30_000);
    const fromB = await pool.read(b.url, name, dist.filename);
    assert.notEqual(fromB.error, null, `B's client has a broken body (status ${fromB.status}, ${fromB.bytes?.length} bytes)`);
    assert.ok((await onA).error !== null);
    await pool.upstream.setFault(null);
    assertWhole(await pool.read(c.url, name, dist.filename), dist, 'C, afterwards');
  });

  test('parts that hold the whole file (its holder could not keep it): the next holder makes the blob from them, the upstream sends nothing more', async () => {
    const { name, dist } = await upstreamWheel(2 * MiB);
    const bytes = await readFile(dist.path);
    await leaveParts(dist.sha256, [
      [0, bytes.subarray(0, MiB)],
      [MiB, bytes.subarray(MiB)],
    ]);
    assertWhole(await pool.read(a.url, name, dist.filename), dist, 'A');
    const [get] = pool.gets(dist.filename);
    assert.equal(rangeFrom(get!.headers), dist.size, 'asked from the end');
    assert.equal(get!.status, 416);
    await eventually(async () => (await pool.partKeys()).length === 0, 'the parts are removed once the blob is in', 30_000);
  });

  test('a download nobody on another node follows writes no parts: the bucket gets the file once', async () => {
    const { name, dist } = await upstreamWheel(2 * MiB);
    await pool.upstream.setFault({ kind: 'slow', bytesPerSecond: MiB, pathPrefix: '/files/' });
    await pool.s3.takeLog();
    assertWhole(await pool.read(a.url, name, dist.filename), dist, 'A');
    const puts = (await pool.s3.takeLog()).filter((r) => r.method === 'PUT' && r.target.split('?')[0]!.includes('/tmp/parts/'));
    assert.deepEqual(puts, [], 'no part written');
    await pool.upstream.setFault(null);
  });

  test('an upstream that ignores Range: the holder resuming after parts gets the whole file again and skips what the parts hold', async () => {
    const { name, dist } = await upstreamWheel(2 * MiB);
    await leaveParts(dist.sha256, [[0, (await readFile(dist.path)).subarray(0, MiB)]]);
    pool.upstream.configure({ ranges: false });
    try {
      assertWhole(await pool.read(a.url, name, dist.filename), dist, 'A');
    } finally {
      pool.upstream.configure({ ranges: true });
    }
    const [get] = pool.gets(dist.filename);
    assert.equal(rangeFrom(get!.headers), MiB, 'asked from where the parts end');
    assert.equal(get!.status, 200, 'and answered with the whole file');
  });
});
