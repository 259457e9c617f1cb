/**
 * Air-gap transfer end to end with a real pip: pip installs `tp-app` (Requires-Dist: tp-dep) from a fake
 * upstream through larder, filling its cache; a private `tp-private` is uploaded; `larder export` writes one
 * archive while that server runs; `larder import` loads it into a fresh data directory; a larder started
 * there offline, its upstream a closed port, lets pip in a fresh venv install all three.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeVenv, pipInstall, requireClients } from '../fixtures/clients.js';
import { buildWheel } from '../fixtures/dists.js';
import { startFakeUpstream } from '../fixtures/fake-upstream.js';
import { e2eWork, larderProcess as larderCli, showResult as show } from '../helpers/e2e-work.js';
import { basicAuth, startLarder } from '../helpers/larder.js';
import { publish } from '../helpers/upload-form.js';

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('export, import into a fresh data directory, pip installs offline from it', { timeout: 180_000 }, async (t) => {
  if (!(await requireClients(t, ['python']))) return;
  const { work, cleanups } = await e2eWork(t, 'larder-e2e-transfer-');

  const dep = await buildWheel(join(work, 'dists'), { name: 'tp-dep', version: '1.0', modules: { 'tp_dep/__init__.py': 'VALUE = "dep 1.0"\n' } });
  const app = await buildWheel(join(work, 'dists'), {
    name: 'tp-app',
    version: '1.0',
    requiresDist: ['tp-dep'],
    modules: { 'tp_app/__init__.py': 'import tp_dep\nVALUE = "app 1.0 with " + tp_dep.VALUE\n' },
  });
  const priv = await buildWheel(join(work, 'dists'), { name: 'tp-private', version: '0.1', modules: { 'tp_private/__init__.py': 'VALUE = "private 0.1"\n' } });

  const up = await startFakeUpstream();
  cleanups.push(() => up.close());
  up.addProject('tp-dep', [dep]);
  up.addProject('tp-app', [app]);

  // 1. Online: pip fills the cache; a private package is uploaded.
  const source = await startLarder({ upstream: up.url }, join(work, 'source'));
  cleanups.push(() => source.stop());
  const venv1 = await makeVenv(join(work, 'venv1'));
  const online = await pipInstall(venv1, `${source.url}/simple/`, ['tp-app']);
  assert.equal(online.code, 0, show(online));
  await source.addUser('alice', 'alice-password');
  await publish(source.url, basicAuth('alice', 'alice-password'), priv);

  // 2. Export while that server runs; import into a fresh data directory.
  const archive = join(work, 'transfer.tar');
  const exported = await larderCli(['export', archive, '--data', source.data]);
  assert.equal(exported.code, 0, show(exported));
  const target = join(work, 'air-gapped');
  const imported = await larderCli(['import', archive, '--data', target]);
  assert.equal(imported.code, 0, show(imported));
  assert.match(imported.stdout, /^added 1 file, \d+ cache entries; skipped 0 identical files, 0 conflicts$/m);

  // 3. The other side: no upstream (a closed port, and offline), a fresh venv.
  await up.close();
  const offline = await startLarder({ upstream: `http://127.0.0.1:${await closedPort()}/simple/`, offline: true }, target);
  cleanups.push(() => offline.stop());
  const venv2 = await makeVenv(join(work, 'venv2'));
  const install = await pipInstall(venv2, `${offline.url}/simple/`, ['tp-app', 'tp-private']);
  assert.equal(install.code, 0, show(install));
  for (const f of [app.filename, dep.filename, priv.filename]) assert.ok(install.stdout.includes(f), `pip should fetch ${f}:\n${install.stdout}`);
  const run = await venv2.run(['-c', 'import tp_app, tp_private; print(tp_app.VALUE); print(tp_private.VALUE)']);
  assert.equal(run.code, 0, show(run));
  assert.equal(run.stdout.trim(), 'app 1.0 with dep 1.0\nprivate 0.1');
});
