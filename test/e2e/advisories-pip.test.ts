/**
 * Imported advisories with a real pip, through larder and a fake upstream: a release pip installed (and
 * larder cached) before `larder advisories import` (the real CLI, another process) is blocked after it —
 * pip installing its file fails with the advisory id and severity in pip's output; unpinned installs get
 * the newest release no advisory blocks; a project covered whole by a malware advisory fails with the
 * advisory named (at -vv, where pip prints why an index page could not be fetched).
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
import { writeOsvZip } from '../helpers/osv-zip.js';
import { PIP_ACCEPT } from '../helpers/raw-get.js';

const module = (name: string, value: string) => ({ [`${name.replace(/-/g, '_')}/__init__.py`]: `VALUE = "${value}"\n` });

test('pip through larder: advisories imported while it runs block cached and uncached releases, with the reason', { timeout: 170_000 }, async (t) => {
  if (!(await requireClients(t, ['python']))) return;
  const { work, cleanups } = await e2eWork(t, 'larder-e2e-advisories-');
  const dists = join(work, 'dists');
  const wheel = (name: string, version: string) =>
    buildWheel(join(dists, `${name}-${version}`), { name, version, modules: module(name, `${name} ${version}`) });

  const pypi = await startFakeUpstream();
  cleanups.push(() => pypi.close());
  const high10 = await wheel('vuln-high', '1.0');
  pypi.addProject('vuln-high', [high10, await wheel('vuln-high', '2.0')]);
  pypi.addProject('trojan-lib', [await wheel('trojan-lib', '1.0'), await wheel('trojan-lib', '1.1')]);
  pypi.addProject('evil-all', [await wheel('evil-all', '1.0')]);

  const data = join(work, 'data');
  const l = await startLarder({ upstream: pypi.url, blockVulnerable: 'moderate' }, data);
  cleanups.push(() => l.stop());
  const index = `${l.url}/simple/`;
  const venv = await makeVenv(join(work, 'venv'));
  const value = async (name: string) => (await venv.run(['-c', `import ${name.replace(/-/g, '_')} as m; print(m.VALUE)`])).stdout.trim();

  // Before the import: pip installs (and larder caches) vuln-high 1.0.
  const before = await pipInstall(venv, index, ['vuln-high==1.0']);
  assert.equal(before.code, 0, show(before));
  assert.equal(await value('vuln-high'), 'vuln-high 1.0');
  const page = (await (await fetch(`${index}vuln-high/`, { headers: { Accept: PIP_ACCEPT } })).json()) as { files: { filename: string; url: string }[] };
  const high10Url = new URL(page.files.find((f) => f.filename === high10.filename)!.url, `${index}vuln-high/`).href;

  const zip = await writeOsvZip(work, 'all.zip', [
    { id: 'MAL-2026-100', package: 'evil-all', events: [{ introduced: '0' }] },
    { id: 'MAL-2026-200', package: 'trojan-lib', versions: ['1.1'] },
    { id: 'GHSA-hhhh-hhhh-hhhh', package: 'vuln-high', events: [{ introduced: '0' }, { fixed: '2.0' }], databaseSeverity: 'HIGH' },
  ]);
  const imported = await runCommand(process.execPath, ['--import', 'tsx', 'src/main.ts', 'advisories', 'import', zip, '--data', data], {
    cwd: REPO,
    env: cliEnv(),
    timeoutMs: 60_000,
  });
  assert.equal(imported.code, 0, show(imported));
  assert.match(imported.stdout, /loaded 3 advisories/);

  // The cached file of the blocked release: pip fails and prints larder's reason.
  const cached = await pipInstall(venv, index, ['--force-reinstall', '--no-deps', high10Url]);
  assert.notEqual(cached.code, 0, show(cached));
  assert.match(
    `${cached.stdout}${cached.stderr}`,
    /403 Client Error: vuln-high 1\.0 is blocked by larder: vulnerability GHSA-hhhh-hhhh-hhhh, severity high/,
    show(cached),
  );
  // Pinned, the blocked release is not there; unpinned, pip gets the fixed one.
  const pinned = await pipInstall(venv, index, ['--force-reinstall', 'vuln-high==1.0']);
  assert.notEqual(pinned.code, 0, show(pinned));
  const upgraded = await pipInstall(venv, index, ['--upgrade', 'vuln-high']);
  assert.equal(upgraded.code, 0, show(upgraded));
  assert.equal(await value('vuln-high'), 'vuln-high 2.0');

  // Malware for one version: pip gets the other.
  const trojan = await pipInstall(venv, index, ['trojan-lib']);
  assert.equal(trojan.code, 0, show(trojan));
  assert.equal(await value('trojan-lib'), 'trojan-lib 1.0');

  // Malware covering every version: the project is refused, the advisory named.
  const evil = await pipInstall(venv, index, ['-vv', 'evil-all']);
  assert.notEqual(evil.code, 0, show(evil));
  assert.match(
    `${evil.stdout}${evil.stderr}`,
    /403 Client Error: evil-all is blocked by larder: malicious package advisory MAL-2026-100 covers every version/,
    show(evil),
  );
});
