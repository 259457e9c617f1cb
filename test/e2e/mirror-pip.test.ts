/**
 * Air-gap mirror end to end: a fake upstream serves platform-specific wheels for two Python versions and
 * two platforms with marker-conditional dependencies; `larder mirror add` fills larder for two Linux
 * targets from a requirements file; the set is exported with `export --mirror` and imported into a fresh
 * data directory; with the upstream gone and larder offline, real pip resolves the whole input for each
 * target (`pip download --only-binary=:all: --python-version --platform`) and installs it for its own.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeVenv, pipInstall, requireClients } from '../fixtures/clients.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream } from '../fixtures/fake-upstream.js';
import { e2eWork, larderProcess as larderCli, showResult as show } from '../helpers/e2e-work.js';
import { startLarder } from '../helpers/larder.js';

const TARGETS = [
  { python: '3.11', platform: 'manylinux_2_17_x86_64' },
  { python: '3.12', platform: 'manylinux_2_17_x86_64' },
];

test('mirror add for two targets, export --mirror, import, pip resolves everything offline', { timeout: 300_000 }, async (t) => {
  if (!(await requireClients(t, ['python']))) return;
  const { work, cleanups } = await e2eWork(t, 'larder-e2e-mirror-');
  const dists = join(work, 'dists');
  const module = (name: string, body = 'VALUE = 1\n') => ({ [`${name.replace(/-/g, '_')}/__init__.py`]: body });
  const pure = (name: string, version: string, requiresDist: string[] = []) => buildWheel(dists, { name, version, requiresDist, modules: module(name) });
  const native = (version: string, py: string, platform: string) =>
    buildWheel(dists, { name: 'mx-native', version, pythonTag: py, abiTag: py, platformTag: platform, modules: module('mx-native') });

  const app = await pure('mx-app', '1.0', ['mx-native>=1.0', 'mx-win; sys_platform == "win32"', 'mx-old; python_version < "3.12"', 'mx-extra[fast]']);
  const nativeWheels: BuiltDist[] = [];
  for (const py of ['cp311', 'cp312']) for (const plat of ['manylinux_2_17_x86_64', 'win_amd64']) nativeWheels.push(await native('1.1', py, plat));
  const nativeOld = await native('1.0', 'cp311', 'manylinux_2_17_x86_64');
  const win = await pure('mx-win', '1.0');
  const old = await pure('mx-old', '1.0');
  const extra = await buildWheel(dists, {
    name: 'mx-extra',
    version: '1.0',
    requiresDist: ['mx-fast; extra == "fast"'],
    extraMetadata: { 'Provides-Extra': 'fast' },
    modules: module('mx-extra'),
  });
  const fast = await pure('mx-fast', '1.0');
  const up = await startFakeUpstream();
  cleanups.push(() => up.close());
  up.addProject('mx-app', [app]);
  up.addProject('mx-native', [nativeOld, ...nativeWheels]);
  up.addProject('mx-win', [win]);
  up.addProject('mx-old', [old]);
  up.addProject('mx-extra', [extra]);
  up.addProject('mx-fast', [fast]);

  const requirements = join(work, 'requirements.txt');
  await writeFile(requirements, 'mx-app\n');
  const data = join(work, 'online');
  const env = { LARDER_UPSTREAM: up.url, LARDER_DATA: data };
  const targetArgs = ['--python', '3.11', '--python', '3.12', '--platform', 'manylinux_2_17_x86_64'];

  // A dry run plans and fetches no distribution file.
  const dry = await larderCli(['mirror', 'add', 'site', '-r', requirements, ...targetArgs, '--dry-run'], env);
  assert.equal(dry.code, 0, show(dry));
  assert.match(dry.stdout, /mx-native {2}mx_native-1\.1-cp312-cp312-manylinux_2_17_x86_64\.whl {2}\S+ \S+ {2}3\.12\/manylinux_2_17_x86_64/);
  assert.equal(up.requestsTo('/files/').filter((r) => !r.path.endsWith('.metadata')).length, 0, 'a dry run downloads no distribution file');

  const add = await larderCli(['mirror', 'add', 'site', '-r', requirements, ...targetArgs], env);
  assert.equal(add.code, 0, show(add));
  assert.match(add.stdout, /^3\.11\/manylinux_2_17_x86_64\s+5\s+5\s/m);
  assert.match(add.stdout, /^3\.12\/manylinux_2_17_x86_64\s+4\s+4\s/m);
  assert.match(add.stdout, /mirror site is complete/);
  const fetched = new Set(up.requestsTo('/files/').map((r) => r.path.split('/').pop()!));
  for (const d of [app, old, extra, fast, nativeWheels[0]!, nativeWheels[2]!]) assert.ok(fetched.has(d.filename), `${d.filename} mirrored`);
  for (const d of [win, nativeOld, nativeWheels[1]!, nativeWheels[3]!]) assert.ok(!fetched.has(d.filename), `${d.filename} not mirrored for Linux targets`);

  // Resumable: a second run fetches nothing new.
  up.clearLog();
  const again = await larderCli(['mirror', 'sync', 'site'], env);
  assert.equal(again.code, 0, show(again));
  assert.match(again.stdout, /fetched 0 files .*, 12 were cached already/);
  assert.equal(up.requestsTo('/files/').filter((r) => !r.path.endsWith('.metadata')).length, 0);
  const list = await larderCli(['mirror', 'list'], env);
  assert.match(list.stdout, /^site: 6 files .*complete$/m);

  // Transfer just the set; import on the far side.
  const archive = join(work, 'site.tar');
  const exported = await larderCli(['export', archive, '--mirror', 'site'], env);
  assert.equal(exported.code, 0, show(exported));
  assert.match(exported.stdout, /12 cached files/);
  const far = join(work, 'far');
  const imported = await larderCli(['import', archive, '--data', far]);
  assert.equal(imported.code, 0, show(imported));

  // Serve offline, the upstream gone.
  await up.close();
  const offline = await startLarder({ upstream: up.url, offline: true }, far);
  cleanups.push(() => offline.stop());
  const venv = await makeVenv(join(work, 'venv'));
  for (const target of TARGETS) {
    const dir = join(work, `download-${target.python}`);
    await mkdir(dir);
    const download = await venv.pip([
      'download',
      '--no-cache-dir',
      '--only-binary=:all:',
      '--python-version',
      target.python,
      '--platform',
      target.platform,
      '--index-url',
      `${offline.url}/simple/`,
      '-d',
      dir,
      '-r',
      requirements,
    ]);
    assert.equal(download.code, 0, show(download));
    const got = await readdir(dir);
    assert.ok(got.includes(`mx_native-1.1-cp${target.python.replace('.', '')}-cp${target.python.replace('.', '')}-manylinux_2_17_x86_64.whl`), got.join(' '));
    for (const d of [app, extra, fast]) assert.ok(got.includes(d.filename), `${d.filename} for ${target.python}: ${got.join(' ')}`);
  }
  const install = await pipInstall(venv, `${offline.url}/simple/`, ['-r', requirements]);
  assert.equal(install.code, 0, show(install));
  const run = await venv.run(['-c', 'import mx_app, mx_native, mx_fast, mx_old; print("ok")']);
  assert.equal(run.stdout.trim(), 'ok', show(run));
});
