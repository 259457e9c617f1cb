/**
 * `larder import` of an archive holding one large blob (many chunks) and a few small ones: no
 * MaxListenersExceededWarning (each wait for the staging file to drain once left an error listener on it).
 * The CLI runs in this process, so its warnings are this process's.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildWheel } from '../fixtures/dists.js';
import { runLarderCli } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';

/** Larger than 11 reads of the archive (1 MiB each): the old staging code waited for a drain more than 10 times. */
const LARGE = 16 << 20;

let dir: string;
let source: TestLarder;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-import-large-'));
  source = await startLarder();
  await source.addUser('alice', 'alice-password');
  const dists = [await buildWheel(join(dir, 'd'), { name: 'big', version: '1.0', dataFile: { bytes: LARGE } })];
  for (let i = 0; i < 3; i++) dists.push(await buildWheel(join(dir, 'd'), { name: 'small', version: `1.${i}` }));
  for (const dist of dists) {
    const res = await fetch(`${source.url}/legacy/`, {
      method: 'POST',
      body: await uploadForm(dist),
      headers: { Authorization: basicAuth('alice', 'alice-password') },
    });
    assert.equal(res.status, 200, `${dist.filename}: ${res.statusText}`);
  }
});

after(async () => {
  await source?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('importing a large archive leaks no listener (no MaxListenersExceededWarning)', async () => {
  const archive = join(dir, 'large.tar');
  const exported = await runLarderCli(['export', archive, '--private-only', '--data', source.data]);
  assert.equal(exported.code, 0, exported.stderr);
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  const target = join(dir, 'target');
  try {
    const imported = await runLarderCli(['import', archive, '--data', target]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^added 4 files, /m);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  assert.deepEqual(
    warnings.map((w) => `${w.name}: ${w.message}`),
    [],
  );
});
