/**
 * Mirror sets pin their files: LRU eviction under LARDER_CACHE_MAX_SIZE skips what a set needs; and the
 * mirror commands' refusals (unknown set, missing inputs, a version nothing satisfies) exit non-zero
 * with a reason.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FileBlobStore } from '../../src/store/fs/file-blob-store.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { runLarderCli } from '../helpers/cli.js';
import { startLarder } from '../helpers/larder.js';
import { mirrorSetRecord } from '../helpers/mirror-set-records.js';

let upstream: FakeUpstream;
let dir: string;
const wheels: BuiltDist[] = [];
const sha256 = (b: ArrayBuffer) => createHash('sha256').update(Buffer.from(b)).digest('hex');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-mirror-pin-'));
  upstream = await startFakeUpstream();
  for (let i = 0; i < 4; i++) {
    const w = await buildWheel(join(dir, `w${i}`), { name: `pin${i}`, version: '1.0', dataFile: { bytes: 1_000_000, seed: `pin${i}` } });
    wheels.push(w);
    upstream.addProject(`pin${i}`, [w]);
  }
});

after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

test('LRU eviction never evicts a file a mirror set needs', async () => {
  const server = await startLarder({ upstream: upstream.url, cacheMaxSize: 2_500_000 });
  try {
    await server.larder.storage.mirrorSets.put(mirrorSetRecord('site', [{ project: 'pin0', filename: wheels[0]!.filename, size: wheels[0]!.size }]));
    for (const [i, w] of wheels.entries()) {
      const res = await fetch(`${server.url}/packages/pin${i}/${w.filename}`);
      assert.equal(sha256(await res.arrayBuffer()), w.sha256);
    }
    const blobs = new FileBlobStore(server.data);
    assert.ok(existsSync(blobs.pathFor(wheels[0]!.sha256)), 'the pinned file, least recently used, stays');
    assert.ok(!existsSync(blobs.pathFor(wheels[1]!.sha256)), 'the least recently used unpinned file went');
    assert.ok(existsSync(blobs.pathFor(wheels[3]!.sha256)), 'the newest file stays');
  } finally {
    await server.close();
  }
});

test('mirror add reports what it cannot satisfy and exits 1; mirror remove drops unneeded files', async () => {
  const data = join(dir, 'cli');
  const env = { LARDER_UPSTREAM: upstream.url, LARDER_DATA: data };
  const req = join(dir, 'req.txt');
  await writeFile(req, 'pin0\npin1>=2\nno-such-project\n');
  const add = await runLarderCli(['mirror', 'add', 'bad', '-r', req, '--python', '3.11', '--platform', 'win_amd64'], { env });
  assert.equal(add.code, 1, add.stderr);
  assert.match(add.stdout, /pin1 \[3\.11\/win_amd64\]: version conflict: nothing satisfies >=2/);
  assert.match(add.stdout, /no-such-project \[3\.11\/win_amd64\]: not on the index/);
  assert.match(add.stderr, /mirror set bad is incomplete: 2 problems/);
  const list = await runLarderCli(['mirror', 'list'], { env });
  assert.match(list.stdout, /^bad: 1 files .*incomplete \(2 problems\)$/m);
  const removed = await runLarderCli(['mirror', 'remove', 'bad'], { env });
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /dropped 2 cached files/);
  assert.equal((await runLarderCli(['mirror', 'remove', 'bad'], { env })).code, 2);
  const noInputs = await runLarderCli(['mirror', 'add', 'x', '--python', '3.11', '--platform', 'win_amd64'], { env });
  assert.equal(noInputs.code, 2);
  assert.match(noInputs.stderr, /give at least one requirements file/);
  const badPlatform = await runLarderCli(['mirror', 'add', 'x', '-r', req, '--python', '3.11', '--platform', 'amiga'], { env });
  assert.match(badPlatform.stderr, /'amiga' is not a wheel platform tag/);
});
