/**
 * The small-disk helper: a real `larder serve` on a private 48 MiB tmpfs that this process can fill and
 * free through /proc/<pid>/root, and that leaves no mount behind on the host.
 */
import assert from 'node:assert/strict';
import { access, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCommand } from '../fixtures/clients.js';
import { DEFAULT_DISK_BYTES, smallDiskUnavailable, startSmallDisk } from '../helpers/small-disk.js';

const MiB = 1024 * 1024;
/** Larder writes a little while we measure (LMDB pages); a few blocks either way is still "near". */
const SLACK = 256 * 1024;

const hostMounts = () => readFile('/proc/self/mountinfo', 'utf8');

test('small disk: larder on a private tmpfs that the test fills and frees; no mount left on the host', { timeout: 60_000 }, async (t) => {
  const why = await smallDiskUnavailable();
  if (why) {
    if (process.env.CI) throw new Error(why);
    t.skip(why);
    return;
  }
  const disk = await startSmallDisk({ args: ['--upstream', 'none'] });
  t.after(() => disk.stop('SIGKILL'));

  assert.equal((await fetch(`${disk.url}/health`)).status, 200);
  assert.equal(disk.bytes, DEFAULT_DISK_BYTES);
  assert.equal(disk.hostPath, `/proc/${disk.pid}/root${disk.dataDir}`);
  // The pid is larder's own (exec'd), and only its namespace has the mount.
  assert.match(await readFile(`/proc/${disk.pid}/cmdline`, 'utf8'), /src\/main\.ts\0serve\0/);
  assert.ok(!(await hostMounts()).includes(disk.dataDir), 'not mounted on the host');
  assert.match(await readFile(`/proc/${disk.pid}/mountinfo`, 'utf8'), new RegExp(` ${disk.dataDir} .* - tmpfs tmpfs .*size=49152k`));

  const empty = await disk.free();
  assert.ok(empty <= DEFAULT_DISK_BYTES && empty > DEFAULT_DISK_BYTES - 2 * MiB, `free on a fresh disk: ${empty}`);
  assert.ok(
    (await disk.files()).some((f) => f.path.startsWith('meta/')),
    'larder wrote its metadata store there',
  );

  const left = await disk.fill(5 * MiB);
  assert.ok(Math.abs(left - 5 * MiB) <= SLACK, `free after fill(5 MiB): ${left}`);
  const statf = await runCommand('stat', ['-f', '-c', '%a %S', disk.hostPath]);
  const [blocks, blockSize] = statf.stdout.trim().split(' ').map(Number);
  assert.ok(Math.abs(blocks! * blockSize! - 5 * MiB) <= SLACK, `stat -f: ${statf.stdout}`);
  await assert.rejects(writeFile(join(disk.hostPath, 'too-big'), Buffer.alloc(6 * MiB)), { code: 'ENOSPC' });
  await unlink(join(disk.hostPath, 'too-big'));

  assert.ok(Math.abs((await disk.fill(12 * MiB)) - 12 * MiB) <= SLACK, 'fill shrinks the filler too');
  assert.ok(Math.abs((await disk.fill(1 * MiB)) - 1 * MiB) <= SLACK);
  await writeFile(join(disk.hostPath, 'tmp', 'probe'), 'x').catch(async () => {
    // Larder may create tmp/ lazily; the listing must show the file either way.
    await writeFile(join(disk.hostPath, 'probe'), 'x');
  });
  const listed = await disk.files();
  assert.ok(
    listed.some((f) => f.path.endsWith('probe') && f.size === 1),
    JSON.stringify(listed),
  );
  assert.ok(!listed.some((f) => f.path.includes('filler')), 'the filler is not listed');
  assert.ok((await disk.files('meta')).every((f) => f.path.startsWith('meta/')));

  await disk.freeFiller();
  assert.ok(Math.abs((await disk.free()) - empty) <= SLACK + 64 * 1024, 'freed');
  assert.equal(disk.alive(), true);
  assert.equal(disk.exitStatus(), null);
  assert.equal((await fetch(`${disk.url}/health`)).status, 200, 'larder is unharmed');

  const exit = await disk.stop();
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.equal(disk.alive(), false);
  assert.deepEqual(disk.exitStatus(), exit);
  await assert.rejects(access(`/proc/${disk.pid}/root`), 'the namespace is gone with larder');
  assert.ok(!(await hostMounts()).includes(disk.dataDir), 'no mount left behind');
  await assert.rejects(access(disk.dataDir), 'the mount point is removed');
});
