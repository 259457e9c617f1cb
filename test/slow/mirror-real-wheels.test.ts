/**
 * The mirror against a local mirror of real wheels, when this machine's pip configuration lists one
 * (`file:///opt/pypi/simple`): served over HTTP, `larder mirror add` fills a data directory for
 * CPython 3.11 on manylinux_2_17_x86_64; offline, pip downloads the whole input from larder alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, makeVenv, requireClients, type CommandResult } from '../fixtures/clients.js';
import { runLarderCli } from '../helpers/cli.js';
import { startLarder } from '../helpers/larder.js';

const LOCAL_MIRROR = '/opt/pypi';
const OLDER_MANYLINUX = [
  ...Array.from({ length: 13 }, (_, i) => `manylinux_2_${17 - i}_x86_64`),
  'manylinux2014_x86_64',
  'manylinux2010_x86_64',
  'manylinux1_x86_64',
];
const show = (r: Pick<CommandResult, 'code' | 'stdout' | 'stderr'>) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

test('mirror add from a local mirror of real wheels, pip downloads it offline', { timeout: 600_000 }, async (t) => {
  if (!existsSync(join(LOCAL_MIRROR, 'simple', 'requests'))) {
    t.skip(`no local mirror of real wheels at ${LOCAL_MIRROR} (pip's configuration lists none here)`);
    return;
  }
  if (!(await requireClients(t, ['python']))) return;
  const work = await mkdtemp(join(tmpdir(), 'larder-mirror-real-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', LOCAL_MIRROR], {
    env: cleanEnv(),
    stdio: 'ignore',
  });
  t.after(async () => {
    server.kill();
    await rm(work, { recursive: true, force: true });
  });
  for (
    let i = 0;
    i < 50 &&
    !(await fetch(`http://127.0.0.1:${port}/simple/`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
  const requirements = join(work, 'requirements.txt');
  await writeFile(requirements, 'requests\npydantic\nclick\naiohttp\n');
  const data = join(work, 'data');
  const started = Date.now();
  const add = await runLarderCli(['mirror', 'add', 'real', '-r', requirements, '--python', '3.11', '--platform', 'manylinux_2_17_x86_64'], {
    env: { LARDER_UPSTREAM: `http://127.0.0.1:${port}/simple/`, LARDER_UPSTREAM_JSON_API: 'none', LARDER_DATA: data },
  });
  assert.equal(add.code, 0, show(add));
  t.diagnostic(`real case: ${add.stdout.split('\n').find((l) => l.startsWith('all targets'))} in ${Date.now() - started} ms`);
  server.kill();
  const offline = await startLarder({ upstream: `http://127.0.0.1:${port}/simple/`, offline: true }, data);
  t.after(() => offline.stop());
  const venv = await makeVenv(join(work, 'venv'));
  const dir = join(work, 'dl');
  await mkdir(dir);
  const download = await venv.pip(
    [
      'download',
      '--no-cache-dir',
      '--only-binary=:all:',
      '--python-version',
      '3.11',
      // pip takes a platform tag literally; a target accepts every older manylinux (packaging's rule).
      ...OLDER_MANYLINUX.flatMap((p) => ['--platform', p]),
      '--index-url',
      `${offline.url}/simple/`,
      '-d',
      dir,
      '-r',
      requirements,
    ],
    undefined,
    300_000,
  );
  assert.equal(download.code, 0, show(download));
  assert.ok((await readdir(dir)).some((f) => f.startsWith('pydantic_core-')));
});
