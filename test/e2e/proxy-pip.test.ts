/**
 * End to end through the caching proxy with a real pip: `app` (Requires-Dist: appdep) is installed from
 * the fake upstream through larder; then the upstream is closed, larder is restarted offline on the same
 * data directory, and a fresh venv installs it again from what larder kept.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeVenv, pipInstall, requireClients } from '../fixtures/clients.js';
import { buildSdist, buildWheel } from '../fixtures/dists.js';
import { startFakeUpstream } from '../fixtures/fake-upstream.js';
import { e2eWork, showResult as show } from '../helpers/e2e-work.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';

test('pip installs a package and its dependency through larder, then again from larder offline', { timeout: 85_000 }, async (t) => {
  if (!(await requireClients(t, ['python']))) return;
  const { work, cleanups } = await e2eWork(t, 'larder-e2e-proxy-');
  const data = join(work, 'data');
  /** pip installs `app` through the larder at `url` into a fresh venv, where it runs with its dependency. */
  const installApp = async (venvName: string, url: string) => {
    const venv = await makeVenv(join(work, venvName));
    const install = await pipInstall(venv, `${url}/simple/`, ['app']);
    assert.equal(install.code, 0, show(install));
    const run = await venv.run(['-c', 'import app, appdep; print(app.VALUE)']);
    assert.equal(run.code, 0, show(run));
    assert.equal(run.stdout.trim(), 'app 1.0 with appdep 1.0');
    return venv;
  };

  const appdep = await buildWheel(join(work, 'dists'), {
    name: 'appdep',
    version: '1.0',
    modules: { 'appdep/__init__.py': 'VALUE = "appdep 1.0"\n' },
  });
  const appdepSdist = await buildSdist(join(work, 'dists'), { name: 'appdep', version: '1.0' });
  const app = await buildWheel(join(work, 'dists'), {
    name: 'app',
    version: '1.0',
    requiresDist: ['appdep'],
    modules: { 'app/__init__.py': 'import appdep\nVALUE = "app 1.0 with " + appdep.VALUE\n' },
  });
  // A newer app that needs a Python nobody has: pip must skip it by data-requires-python and take 1.0.
  const appFuture = await buildWheel(join(work, 'dists'), { name: 'app', version: '2.0', requiresPython: '>=99', requiresDist: ['appdep'] });

  const up = await startFakeUpstream();
  cleanups.push(() => up.close());
  up.addProject('appdep', [appdep, appdepSdist]);
  up.addProject('app', [app, appFuture]);

  // 1. Online: pip → larder → fake upstream.
  let larder: TestLarder = await startLarder({ upstream: up.url }, data);
  cleanups.push(() => larder.stop());
  await installApp('venv1', larder.url);

  const downloads = up.requestsTo('/files/').filter((r) => !r.path.endsWith('.metadata'));
  assert.deepEqual(
    downloads.map((r) => decodeURIComponent(r.path.split('/').pop()!)).sort(),
    [app.filename, appdep.filename].sort(),
    'each wheel was fetched from the upstream once, and nothing else',
  );
  assert.ok(up.requestsTo('/simple/app/').length >= 1 && up.requestsTo('/simple/appdep/').length >= 1);

  // 2. The upstream goes away for good; larder restarts offline on the same data directory.
  await up.close();
  await larder.stop();
  larder = await startLarder({ upstream: up.url, offline: true }, data);
  cleanups.push(() => larder.stop());

  const venv2 = await installApp('venv2', larder.url);

  // Something never fetched is a clear 404 from the offline larder, which pip reports as not found.
  const missing = await pipInstall(venv2, `${larder.url}/simple/`, ['never-fetched']);
  assert.notEqual(missing.code, 0);
  assert.match(`${missing.stdout}${missing.stderr}`, /No matching distribution found for never-fetched/i);
});
