/**
 * An sdist of tens of thousands of distinct, long top-level names, compressed under the 50× bomb rule
 * (issue 25: one 15 MB upload took the server from 160 to 792 MB): `larder serve` runs as a child process,
 * the sdist is uploaded, and the child's peak resident memory (VmHWM) grows by far less than the names
 * would take. Slow tier: it builds a 300 MB tar and reads /proc (Linux only).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { digestBuffer } from '../fixtures/hashes.js';
import { suiteChildServer } from '../helpers/child-server.js';
import { basicAuth } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';
import { paxHeader, tarData, tarHeader, writeRawTarGz } from '../helpers/upload-archives.js';

const NAMES = 80_000;
const NAME_LENGTH = 3000;
const MiB = 1024 * 1024;

/** Peak resident memory of a process, in bytes. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

describe('an sdist of many long top-level names', { skip: !existsSync('/proc/self/status') && 'needs /proc' }, () => {
  const suite = suiteChildServer('larder-names-');

  test('is refused at its second name, and the server does not grow by what the names would take', async () => {
    // 80,000 names of 3,000 characters: 240 MB of names, about 320 MB of tar, a few MB packed.
    // 96 random bytes a name keep the archive under the 50× rule, so that only the names can stop the reading.
    const noise = randomBytes(NAMES * 96).toString('base64url');
    const filler = 'x'.repeat(NAME_LENGTH);
    function* members() {
      yield tarHeader('many_names-1.0/PKG-INFO', { size: 1 });
      yield tarData('x');
      for (let i = 0; i < NAMES; i++) {
        const name = `${i}-${noise.slice(i * 128, (i + 1) * 128)}-`;
        yield* paxHeader({ path: name + filler.slice(name.length) });
        yield tarHeader(name, { type: '5' });
      }
    }
    const like: BuiltDist = await buildWheel(join(suite.dir, 'like'), { name: 'many-names', version: '1.0' });
    const path = await writeRawTarGz(join(suite.dir, 'many_names-1.0.tar.gz'), members());
    const bytes = await readFile(path);
    const sdist: BuiltDist = {
      ...like,
      ...(await digestBuffer(bytes)),
      path,
      filename: 'many_names-1.0.tar.gz',
      packagetype: 'sdist',
      pythonVersion: 'source',
    };

    const before = await peakRss(suite.server.child.pid!);
    const res = await fetch(`${suite.server.url}/legacy/`, {
      method: 'POST',
      body: await uploadForm(sdist),
      headers: { Authorization: basicAuth('alice', 'alice-password') },
    });
    assert.equal(res.status, 400);
    assert.equal(res.statusText, 'Invalid distribution file. Incorrect number of top-level directories in sdist');
    const growth = (await peakRss(suite.server.child.pid!)) - before;
    // Keeping every name (larder before issue 25) grows the heap by more than the 240 MB of names.
    assert.ok(growth < 100 * MiB, `peak RSS grew by ${(growth / MiB).toFixed(0)} MB for a ${(bytes.length / MiB).toFixed(1)} MB upload`);
    const health = await fetch(`${suite.server.url}/simple/`);
    assert.equal(health.status, 200);
  });
});
