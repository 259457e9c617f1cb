/**
 * A full data disk (docs/storage.md, "When the data disk fills up"), on a real filesystem: the real
 * `larder serve` with its data directory on a 48 MiB tmpfs that the test fills. larder stays up, cached
 * files keep being served, upstream files are delivered verified but not kept, pages are served, uploads
 * get 507, a metric and a log line say so, and once space is freed everything is kept again.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { runCommand } from '../fixtures/clients.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { cliEnv } from '../helpers/child-server.js';
import { eventually } from '../helpers/eventually.js';
import { PIP_ACCEPT, rawGet } from '../helpers/raw-get.js';
import { smallDiskUnavailable, startSmallDisk, type SmallDiskServer } from '../helpers/small-disk.js';
import { uploadForm } from '../helpers/upload-form.js';

const MiB = 1024 * 1024;
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Skips where a private tmpfs cannot be mounted, except in CI, where that is a failure. */
async function skipWithoutSmallDisk(t: TestContext): Promise<boolean> {
  const why = await smallDiskUnavailable();
  if (!why) return false;
  if (process.env.CI) throw new Error(why);
  t.skip(why);
  return true;
}

describe('a full data disk', { timeout: 180_000 }, () => {
  let dir: string;
  let up: FakeUpstream;
  const wheels: Record<string, BuiltDist> = {};
  const disks: SmallDiskServer[] = [];

  const serve = async (reserve: string): Promise<SmallDiskServer> => {
    const disk = await startSmallDisk({ args: ['--upstream', up.url, '--disk-reserve', reserve, '--upstream-retries', '0'] });
    disks.push(disk);
    return disk;
  };
  const kept = async (disk: SmallDiskServer, dist: BuiltDist) => (await disk.files('blobs')).some((f) => f.path.endsWith(dist.sha256));
  const tmpEmpty = async (disk: SmallDiskServer) => (await disk.files('tmp')).length === 0;
  const metric = async (disk: SmallDiskServer, what: string) => {
    const text = await (await fetch(`${disk.url}/metrics`)).text();
    return Number(new RegExp(`^larder_disk_full_total\\{what="${what}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  };
  const download = async (disk: SmallDiskServer, dist: BuiltDist) => {
    const got = await rawGet(`${disk.url}/packages/${dist.name}/${dist.filename}`, { timeoutMs: 30_000 });
    assert.equal(got.status, 200, got.body.toString().slice(0, 200));
    assert.equal(got.error, undefined);
    assert.equal(sha256Hex(got.body), dist.sha256, `${dist.filename} arrives whole and verified`);
    return got;
  };
  /**
   * larder asks the filesystem for its free space at most once a second (and runs in its own process, so its
   * clock cannot be moved): pages of unknown projects are asked for until larder declines to keep one.
   */
  const untilBelowReserveSeen = async (disk: SmallDiskServer) => {
    const before = await metric(disk, 'page');
    let probe = 0;
    await eventually(async () => {
      await rawGet(`${disk.url}/simple/probe-${probe++}/`, { headers: { Accept: PIP_ACCEPT } });
      return (await metric(disk, 'page')) > before;
    }, 'larder sees the disk below its reserve');
  };
  /** Once larder has seen the space freed, a download of `dist` is kept; until then it is delivered only. */
  const untilKept = (disk: SmallDiskServer, dist: BuiltDist) =>
    eventually(async () => {
      await download(disk, dist);
      return kept(disk, dist);
    }, `${dist.filename} is kept once space is freed`);
  const upload = async (disk: SmallDiskServer, dist: BuiltDist) =>
    fetch(`${disk.url}/legacy/`, {
      method: 'POST',
      body: await uploadForm(dist),
      headers: { Authorization: `Basic ${Buffer.from('alice:a-long-password').toString('base64')}` },
    });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-full-disk-'));
    up = await startFakeUpstream();
    for (const name of ['cached', 'fresh', 'unsized', 'later']) {
      wheels[name] = await buildWheel(dir, { name, version: '1.0', dataFile: { bytes: 3 * MiB, seed: `full-disk-${name}` } });
      up.addProject(name, [wheels[name]!]);
    }
    up.addProject('pageonly', [await buildWheel(dir, { name: 'pageonly', version: '1.0' })]);
    wheels.private = await buildWheel(dir, { name: 'private-thing', version: '1.0', dataFile: { bytes: MiB, seed: 'private' } });
    wheels.bigprivate = await buildWheel(dir, { name: 'private-thing', version: '2.0', dataFile: { bytes: 6 * MiB, seed: 'bigprivate' } });
  });

  after(async () => {
    for (const disk of disks) await disk.stop('SIGKILL').catch(() => undefined);
    await up.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('below the reserve: cached files served, upstream files delivered but not kept, pages served, uploads 507; all kept again once space is freed', async (t) => {
    if (await skipWithoutSmallDisk(t)) return;
    const disk = await serve('8MiB');
    const user = await runCommand(process.execPath, ['--import', 'tsx', 'src/main.ts', 'user', 'add', 'alice', '--password-stdin', '--data', disk.hostPath], {
      cwd: REPO,
      env: cliEnv(),
      input: 'a-long-password\n',
    });
    assert.equal(user.code, 0, user.stderr);
    await download(disk, wheels.cached!);
    assert.ok(await kept(disk, wheels.cached!));
    assert.equal((await rawGet(`${disk.url}/simple/fresh/`, { headers: { Accept: PIP_ACCEPT } })).status, 200);
    assert.equal((await rawGet(`${disk.url}/simple/later/`, { headers: { Accept: PIP_ACCEPT } })).status, 200);

    await disk.fill(4 * MiB);
    await untilBelowReserveSeen(disk);
    const cachedAgain = await download(disk, wheels.cached!);
    assert.equal(cachedAgain.headers['x-larder-cache'], 'hit');

    const fresh = await download(disk, wheels.fresh!);
    assert.equal(fresh.headers['x-larder-cache'], 'miss');
    assert.equal(fresh.headers['content-length'], String(wheels.fresh!.size));
    await eventually(() => tmpEmpty(disk), 'tmp/ is emptied');
    assert.equal(await kept(disk, wheels.fresh!), false, 'not kept below the reserve');
    assert.ok((await metric(disk, 'file')) >= 1);

    const pagesNotKept = await metric(disk, 'page');
    const page = await rawGet(`${disk.url}/simple/pageonly/`, { headers: { Accept: PIP_ACCEPT } });
    assert.equal(page.status, 200);
    await eventually(async () => (await metric(disk, 'page')) > pagesNotKept, 'the page is served but not written');
    assert.equal((await rawGet(`${disk.url}/simple/`)).status, 200);

    const refused = await upload(disk, wheels.private!);
    assert.equal(refused.status, 507);
    assert.match(refused.statusText, /data disk is full/);
    const tooBig = await upload(disk, wheels.bigprivate!);
    assert.equal(tooBig.status, 507);
    await eventually(() => tmpEmpty(disk), 'the refused uploads left nothing in tmp/');
    assert.ok((await metric(disk, 'upload')) >= 1);
    assert.match(disk.output(), /the data disk is full or below LARDER_DISK_RESERVE/);
    assert.ok(disk.alive(), 'larder is still running');

    await disk.freeFiller();
    await untilKept(disk, wheels.later!);
    const accepted = await upload(disk, wheels.private!);
    assert.equal(accepted.status, 200, accepted.statusText);
    assert.ok(disk.alive());
  });

  test('a disk that runs out midway through a download (real ENOSPC): the client still gets the verified file, nothing is kept', async (t) => {
    if (await skipWithoutSmallDisk(t)) return;
    // A reserve of one byte lets the writes run into the filesystem's own limit.
    const disk = await serve('1');
    up.configure({ fileHashes: false });
    try {
      assert.equal((await rawGet(`${disk.url}/simple/unsized/`, { headers: { Accept: PIP_ACCEPT } })).status, 200);
    } finally {
      up.configure({ fileHashes: true });
    }
    await disk.fill(MiB);
    await download(disk, wheels.unsized!);
    // larder's log reaches this process through a pipe, possibly after the last byte of the response.
    await eventually(() => /ENOSPC|no space left/i.test(disk.output()), 'the filesystem itself refused the write (in the log)');
    await eventually(() => tmpEmpty(disk), 'the partial file is removed');
    assert.equal(await kept(disk, wheels.unsized!), false);
    assert.ok((await metric(disk, 'file')) >= 1);
    assert.ok(disk.alive(), 'larder is still running');
    await disk.freeFiller();
    await untilKept(disk, wheels.unsized!);
  });
});
