/**
 * The supply-chain policy with a real pip, through larder with an injected clock and two fake upstreams
 * serving the same names: pip gets the old release under the cooldown (a pinned held-back release fails with
 * the rule and when it becomes available) and the new one after `larder policy allow` (the real CLI, another
 * process); a denied release fails with the reason when pinned and is skipped otherwise; denied and
 * not-allowed projects fail with larder's reason in pip's output at -vv; `torch` comes from the
 * PyTorch-style upstream its pattern routes it to.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeVenv, pipInstall, requireClients, runCommand } from '../fixtures/clients.js';
import { buildWheel } from '../fixtures/dists.js';
import { startFakeUpstream } from '../fixtures/fake-upstream.js';
import { cliEnv, REPO } from '../helpers/child-server.js';
import { e2eWork, showResult as show } from '../helpers/e2e-work.js';
import { startLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';

const DAY = 86_400_000;
const module = (name: string, value: string) => ({ [`${name.replace(/-/g, '_')}/__init__.py`]: `VALUE = "${value}"\n` });

test('pip through larder: cooldown and break-glass, deny and allow lists, a routed upstream', { timeout: 170_000 }, async (t) => {
  if (!(await requireClients(t, ['python']))) return;
  const { work, cleanups } = await e2eWork(t, 'larder-e2e-policy-');
  const now = Date.UTC(2026, 5, 1);
  const dists = join(work, 'dists');
  const wheel = (name: string, version: string, value: string) =>
    buildWheel(join(dists, `${name}-${version}`), { name, version, modules: module(name, value) });

  const pypi = await startFakeUpstream();
  const pytorch = await startFakeUpstream();
  cleanups.push(
    () => pypi.close(),
    () => pytorch.close(),
  );
  const fresh1 = await wheel('fresh-lib', '1.0', 'fresh 1.0');
  const fresh2 = await wheel('fresh-lib', '2.0', 'fresh 2.0');
  pypi.addProject('fresh-lib', [fresh1, fresh2], { uploadTime: { [fresh1.filename]: new Date(now - 30 * DAY), [fresh2.filename]: new Date(now - 3_600_000) } });
  pypi.addProject('evil-pkg', [await wheel('evil-pkg', '1.0', 'evil')], { uploadTime: new Date(now - 30 * DAY) });
  pypi.addProject('other-lib', [await wheel('other-lib', '1.0', 'other')], { uploadTime: new Date(now - 30 * DAY) });
  pypi.addProject('old-lib', [await wheel('old-lib', '0.9', 'old 0.9'), await wheel('old-lib', '1.0', 'old 1.0')], { uploadTime: new Date(now - 30 * DAY) });
  pypi.addProject('torch', [await wheel('torch', '9.0', 'torch from pypi')], { uploadTime: new Date(now - 30 * DAY) });
  pytorch.addProject('torch', [await wheel('torch', '2.0+cpu', 'torch from pytorch')], { uploadTime: new Date(now - 30 * DAY) });

  const data = join(work, 'data');
  const l = await startLarder(
    {
      upstreams: [
        { name: 'pytorch', url: pytorch.url, projects: ['torch*'], username: null, password: null },
        { name: 'pypi', url: pypi.url, projects: null, username: null, password: null },
      ],
      minReleaseAge: 3 * DAY,
      deny: ['evil-pkg', 'old-lib<1.0'],
    },
    data,
    { clock: new ManualClock(now) },
  );
  cleanups.push(() => l.stop());
  const index = `${l.url}/simple/`;
  const venv = await makeVenv(join(work, 'venv'));
  const value = async (name: string) => (await venv.run(['-c', `import ${name.replace(/-/g, '_')} as m; print(m.VALUE)`])).stdout.trim();

  // The cooldown: 2.0 is an hour old, so pip gets 1.0.
  const first = await pipInstall(venv, index, ['fresh-lib']);
  assert.equal(first.code, 0, show(first));
  assert.equal(await value('fresh-lib'), 'fresh 1.0');

  // Pinned, the held-back release fails with the rule and when it becomes available (pip 23.0 prints the
  // 403's reason phrase; the page lists the file as yanked with the same reason).
  const pinned = await pipInstall(venv, index, ['fresh-lib==2.0']);
  assert.notEqual(pinned.code, 0, show(pinned));
  const available = new Date(now - 3_600_000 + 3 * DAY).toISOString();
  assert.match(
    `${pinned.stdout}${pinned.stderr}`,
    new RegExp(
      `403 Client Error: fresh_lib-2\\.0-py3-none-any\\.whl is held back by larder's release cooldown: .*it becomes available ${available}, or now with: larder policy allow fresh-lib==2\\.0`,
    ),
    show(pinned),
  );

  // A denied release: skipped when not pinned, its reason when pinned.
  const old = await pipInstall(venv, index, ['old-lib']);
  assert.equal(old.code, 0, show(old));
  assert.equal(await value('old-lib'), 'old 1.0');
  const deniedRelease = await pipInstall(venv, index, ['old-lib==0.9']);
  assert.notEqual(deniedRelease.code, 0, show(deniedRelease));
  assert.match(
    `${deniedRelease.stdout}${deniedRelease.stderr}`,
    /403 Client Error: old-lib 0\.9 is refused by larder's deny list \(old-lib<1\.0\)/,
    show(deniedRelease),
  );

  // Break-glass from the real CLI in another process; the running server sees it at once.
  const allowed = await runCommand(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', 'policy', 'allow', 'fresh-lib==2.0', '--reason', 'hotfix', '--data', data],
    {
      cwd: REPO,
      env: cliEnv(),
    },
  );
  assert.equal(allowed.code, 0, show(allowed));
  const upgraded = await pipInstall(venv, index, ['--upgrade', 'fresh-lib']);
  assert.equal(upgraded.code, 0, show(upgraded));
  assert.equal(await value('fresh-lib'), 'fresh 2.0');

  // Denied: pip fails, and (at -vv, where pip prints why an index page could not be fetched) says why.
  const denied = await pipInstall(venv, index, ['-vv', 'evil-pkg']);
  assert.notEqual(denied.code, 0, show(denied));
  assert.match(`${denied.stdout}${denied.stderr}`, /403 Client Error: evil-pkg is refused by larder's deny list \(evil-pkg\)/, show(denied));

  // Not on the allow list (set by a reload, as SIGHUP does).
  l.larder.reloadPolicy({ ...l.larder.config, allow: ['fresh-lib', 'torch'] });
  const notAllowed = await pipInstall(venv, index, ['-vv', 'other-lib']);
  assert.notEqual(notAllowed.code, 0, show(notAllowed));
  assert.match(`${notAllowed.stdout}${notAllowed.stderr}`, /404 Client Error: other-lib is not on larder's allow list/, show(notAllowed));

  // Routed: torch comes from the PyTorch-style upstream only, although pypi has a higher version.
  const torch = await pipInstall(venv, index, ['torch']);
  assert.equal(torch.code, 0, show(torch));
  assert.equal(await value('torch'), 'torch from pytorch');
  assert.equal(pypi.requestsTo('/simple/torch/').length, 0);
});
