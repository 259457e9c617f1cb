/**
 * The readers of a first download (src/download/file-download.ts): a download being kept goes to its file at
 * the upstream's pace whatever its clients do, and a download that is not kept (the disk is below its
 * reserve) holds only a bounded window in memory, so a client that stops reading holds back the upstream.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { BuiltDist } from '../fixtures/dists.js';
import type { FakeUpstream } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { eventually } from '../helpers/eventually.js';
import { rawGet } from '../helpers/raw-get.js';
import { startUpstreamBench, type UpstreamBench } from '../helpers/upstream-bench.js';

const MiB = 1024 * 1024;

/** A client that sends the request, takes the first bytes of the answer and then stops reading (the socket stays open). */
async function stalledClient(url: string): Promise<Socket> {
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  socket.write(`GET ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`);
  await new Promise<void>((resolve, reject) => {
    socket.once('data', () => {
      socket.pause();
      resolve();
    });
    socket.once('error', reject);
  });
  return socket;
}

/** Waits until `read` gives the same value on 20 checks in a row (half a second); that value. */
async function settled(read: () => number, what: string): Promise<number> {
  let last = -1;
  let same = 0;
  await eventually(
    () => {
      const now = read();
      same = now === last ? same + 1 : 0;
      last = now;
      return same >= 20;
    },
    what,
    20_000,
  );
  return last;
}

describe('the readers of a first download', () => {
  let bench: UpstreamBench;
  let up: FakeUpstream;
  let large: BuiltDist;
  const fileRequests = (dist: BuiltDist) => up.requestsTo('/files/').filter((r) => r.path.endsWith(encodeURIComponent(dist.filename)));

  before(async () => {
    bench = await startUpstreamBench('larder-download-readers-', { upstreamRetries: 0 });
    up = bench.up;
    large = await bench.offerWheel({ name: 'large', version: '1.0', dataFile: { bytes: 48 * MiB, seed: 'download-readers' } });
  });

  after(() => bench?.close());

  test('a kept download is not held back by a client that stops reading: the file is kept while that client waits', async () => {
    const l = await bench.larder();
    const client = await stalledClient(`${l.url}/packages/large/${large.filename}`);
    try {
      const hit = async () => (await rawGet(`${l.url}/packages/large/${large.filename}`, { method: 'HEAD' })).headers['x-larder-cache'] === 'hit';
      await eventually(hit, 'the file is kept while the first client has not read it', 20_000);
      const cached = await rawGet(`${l.url}/packages/large/${large.filename}`);
      assert.equal(sha256Hex(cached.body), large.sha256);
    } finally {
      client.destroy();
    }
  });

  test('a download that is not kept is read from the upstream no further than a bounded window ahead of its slowest client', async () => {
    up.configure({ fileHashes: false });
    await up.setFault({ kind: 'endless', pathPrefix: '/files/' });
    try {
      const l = await bench.larder({ diskReserve: 2 ** 50, maxFileSize: 2 ** 40 });
      assert.equal((await rawGet(`${l.url}/simple/large/`)).status, 200);
      up.clearLog();
      const client = await stalledClient(`${l.url}/packages/large/${large.filename}`);
      try {
        const [upstreamSide] = fileRequests(large);
        const sent = await settled(() => upstreamSide!.bytesSent, 'the upstream is held back');
        // 8 MiB in memory, plus what the sockets on both sides buffer.
        assert.ok(sent < 40 * MiB, `${sent} bytes read from the upstream for a client that took a few`);
        assert.equal(upstreamSide!.delivering, true);
      } finally {
        client.destroy();
      }
    } finally {
      up.configure({ fileHashes: true });
      await up.setFault(null);
    }
  });
});
