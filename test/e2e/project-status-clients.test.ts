/**
 * PEP 792 project status with real clients: Debian's twine is refused on an archived project (its output
 * names the status) and accepted again once the project is active; pip (an isolated venv) installs from
 * archived and deprecated projects and finds nothing in a quarantined one; Chromium shows the status on the
 * project page. The status is set with the real CLI against the running server's data directory.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findClients, makeVenv, pipInstall, requireClients, twineUpload, type Clients, type CommandResult, type Venv } from '../fixtures/clients.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { openPage, suiteChromium } from '../helpers/browser.js';
import { assertCliOk, runLarderCli } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { publish } from '../helpers/upload-form.js';

/** A client's stdout and stderr as one line: twine (rich) colours and wraps messages to the terminal width. */
const output = (r: CommandResult) => `${r.stdout}\n${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '').replace(/\s+/g, ' ');

describe('PEP 792 project status with real clients (twine, pip, chromium)', () => {
  let clients: Clients;
  let venv: Venv | null = null;
  let server: TestLarder;
  let tmp: string;
  const browserFor = suiteChromium();
  const dists: Record<string, BuiltDist> = {};

  const twine = (dist: BuiltDist) =>
    twineUpload(`${server.url}/legacy/`, [dist.path], {
      username: 'alice',
      password: 'alice-password-1',
      twine: clients.twine ?? undefined,
      timeoutMs: 60_000,
      extraEnv: { COLUMNS: '200' },
    });
  /** Sets the status with the real CLI and waits (at most 5 s) until the running server's simple page shows it. */
  const setStatus = async (project: string, status: string, reason?: string) => {
    const args = ['project', 'status', project, status, ...(reason ? ['--reason', reason] : [])];
    assertCliOk(await runLarderCli(args, { env: { LARDER_DATA: server.data } }));
    await eventually(async () => {
      const res = await fetch(`${server.url}/simple/${project}/`, { headers: { Accept: 'application/vnd.pypi.simple.v1+json' } });
      return ((await res.json()) as { 'project-status': { status: string } })['project-status'].status === status;
    }, `${project} is ${status} on the running server`);
  };
  const install = (project: string) => pipInstall(venv!, `${server.url}/simple/`, ['--force-reinstall', project], { timeoutMs: 120_000 });

  before(async () => {
    clients = await findClients();
    tmp = await mkdtemp(join(tmpdir(), 'larder-status-e2e-'));
    server = await startLarder();
    await server.addUser('alice', 'alice-password-1');
    for (const [key, name, version] of [
      ['old1', 'acme-old', '1.0'],
      ['old2', 'acme-old', '2.0'],
      ['old3', 'acme-old', '3.0'],
      ['dep', 'acme-dep', '1.0'],
      ['bad', 'acme-bad', '1.0'],
    ] as const) {
      dists[key] = await buildWheel(join(tmp, key), { name, version });
    }
    if (clients.python) venv = await makeVenv(join(tmp, 'venv'), clients.python);
  });
  after(async () => {
    await server?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  test('twine is refused on an archived project, naming the status, and accepted again after active', async (t) => {
    if (!(await requireClients(t, ['twine'], clients))) return;
    let r = await twine(dists.old1!);
    assert.equal(r.code, 0, output(r));
    await setStatus('acme-old', 'archived', 'superseded by acme-new');
    r = await twine(dists.old2!);
    assert.notEqual(r.code, 0, output(r));
    assert.match(output(r), /HTTPError: 400 Bad Request from \S+ Project 'acme-old' is archived \(superseded by acme-new\) and takes no new uploads/);
    assert.equal(await server.larder.meta.getFile('acme-old', dists.old2!.filename), undefined);

    await setStatus('acme-old', 'active');
    r = await twine(dists.old3!);
    assert.equal(r.code, 0, output(r));
    assert.ok(await server.larder.meta.getFile('acme-old', dists.old3!.filename));
  });

  test('pip installs from archived and deprecated projects and finds nothing in a quarantined one', async (t) => {
    if (!(await requireClients(t, ['twine', 'python'], clients))) return;
    const config = await venv!.pip(['config', 'list']);
    assert.equal(config.stdout.trim(), '', 'pip must see no configuration from this machine');
    for (const dist of [dists.dep!, dists.bad!]) {
      const r = await twine(dist);
      assert.equal(r.code, 0, output(r));
    }
    await setStatus('acme-old', 'archived');
    await setStatus('acme-dep', 'deprecated', 'use acme-new');
    await setStatus('acme-bad', 'quarantined', 'malware report');

    // acme-old 3.0 is there when the twine test above passed; 1.0 otherwise.
    const newestOld = (await server.larder.meta.getFile('acme-old', dists.old3!.filename)) ? dists.old3! : dists.old1!;
    for (const [project, dist] of [
      ['acme-old', newestOld],
      ['acme-dep', dists.dep!],
    ] as const) {
      const r = await install(project);
      assert.equal(r.code, 0, output(r));
      assert.ok(r.stdout.includes(dist.filename), `pip should download ${dist.filename}:\n${r.stdout}`);
    }
    const refused = await install('acme-bad');
    assert.notEqual(refused.code, 0, output(refused));
    assert.match(output(refused), /No matching distribution found for acme-bad/);
    // A client holding the old file URL is told why.
    const file = await fetch(`${server.url}/packages/acme-bad/${dists.bad!.filename}`);
    assert.equal(file.status, 403);
    assert.match(await file.text(), /acme-bad is quarantined \(malware report\)/);
  });

  test('the project page shows the status and the reason in Chromium', async (t) => {
    const browser = browserFor(t);
    if (!browser) return;
    // Uploaded by the pip test when twine is here; without twine, the way twine would.
    if (!(await server.larder.meta.getProject('acme-dep'))) await publish(server.url, basicAuth('alice', 'alice-password-1'), dists.dep!);
    await setStatus('acme-dep', 'deprecated', 'use acme-new');
    const { context, page, errors } = await openPage(browser);
    try {
      await page.goto(`${server.url}/project/acme-dep/`);
      const notice = page.locator('[data-project-status]');
      assert.equal(await notice.getAttribute('data-project-status'), 'deprecated');
      assert.match(((await notice.textContent()) ?? '').replace(/\s+/g, ' '), /Deprecated\. This project is deprecated: .* use acme-new/);
      assert.equal(await notice.isVisible(), true);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
