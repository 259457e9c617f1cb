/**
 * Real clients against a real larder: twine (Debian's) uploads distributions built by the tests, pip in
 * an isolated venv installs them from `<larder>/simple/`, and the installed module is imported.
 * Needs twine and python3 with venv: skipped without them, failed without them under CI.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  cleanEnv,
  findClients,
  makeVenv,
  pipInstall,
  requireClients,
  runCommand,
  twineUpload,
  type Clients,
  type CommandResult,
  type Venv,
} from '../fixtures/clients.js';
import { buildSdist, buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const PIP_ACCEPT = 'application/vnd.pypi.simple.v1+json';

/** A client's stdout and stderr as one line: twine (rich) colours and wraps messages to the terminal width. */
const output = (r: CommandResult) => `${r.stdout}\n${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '').replace(/\s+/g, ' ');

/** This machine's LARDER_* settings must not reach the CLI the test runs. */
function withoutLarderSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('LARDER_')));
}

interface SimpleFile {
  filename: string;
  url: string;
  hashes: Record<string, string>;
  yanked?: boolean | string;
  'core-metadata'?: false | Record<string, string>;
}

describe('private index with real clients (twine, pip)', () => {
  let clients: Clients;
  let venv: Venv | null = null;
  let server: TestLarder;
  let tmp: string;
  let repoUrl: string;

  const twine = (files: string[], username: string, password: string) =>
    twineUpload(repoUrl, files, { username, password, twine: clients.twine ?? undefined, timeoutMs: 60_000, extraEnv: { COLUMNS: '100' } });

  const importValue = async (module: string): Promise<string> => {
    const r = await venv!.run(['-c', `import ${module}; print(${module}.VALUE)`]);
    assert.equal(r.code, 0, output(r));
    return r.stdout.trim();
  };

  const simpleFiles = async (base: string, project: string, headers: Record<string, string> = {}): Promise<SimpleFile[]> => {
    const res = await fetch(`${base}/simple/${project}/`, { headers: { Accept: PIP_ACCEPT, ...headers } });
    assert.equal(res.status, 200, `${project}: ${res.status}`);
    return ((await res.json()) as { files: SimpleFile[] }).files;
  };

  before(async () => {
    clients = await findClients();
    tmp = await mkdtemp(join(tmpdir(), 'larder-e2e-'));
    server = await startLarder();
    repoUrl = `${server.url}/legacy/`;
    await server.addUser('alice', 'alice-password-1');
    await server.addUser('bob', 'bob-password-1');
    if (clients.python) venv = await makeVenv(join(tmp, 'venv'), clients.python);
  });
  after(async () => {
    await server?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  let acmeWheel: BuiltDist;
  let acmeSdist: BuiltDist;

  test('twine uploads a wheel and an sdist with a password; pip installs and imports them', async (t) => {
    if (!(await requireClients(t, ['twine', 'python'], clients))) return;
    const config = await venv!.pip(['config', 'list']);
    assert.equal(config.stdout.trim(), '', 'pip must see no configuration from this machine');

    acmeWheel = await buildWheel(join(tmp, 'acme'), { name: 'Acme.Twine', version: '1.0', requiresPython: '>=3.7' });
    acmeSdist = await buildSdist(join(tmp, 'acme'), { name: 'Acme.Twine', version: '1.0', requiresPython: '>=3.7' });
    const up = await twine([acmeWheel.path, acmeSdist.path], 'alice', 'alice-password-1');
    assert.equal(up.code, 0, output(up));

    const files = await simpleFiles(server.url, 'acme-twine');
    assert.deepEqual(files.map((f) => f.filename).sort(), [acmeSdist.filename, acmeWheel.filename].sort());
    for (const dist of [acmeWheel, acmeSdist]) assert.equal(files.find((f) => f.filename === dist.filename)!.hashes.sha256, dist.sha256);

    const install = await pipInstall(venv!, `${server.url}/simple/`, ['acme-twine']);
    assert.equal(install.code, 0, output(install));
    assert.ok(install.stdout.includes(acmeWheel.filename), `pip should pick the wheel:\n${install.stdout}`);
    assert.equal(await importValue('acme_twine'), 'Acme.Twine 1.0');

    // The sdist too: pip builds it with its stdlib-only backend (no network needed).
    const fromSource = await pipInstall(venv!, `${server.url}/simple/`, ['--force-reinstall', '--no-binary', 'acme-twine', 'acme-twine==1.0']);
    assert.equal(fromSource.code, 0, output(fromSource));
    assert.ok(fromSource.stdout.includes(acmeSdist.filename), `pip should download the sdist:\n${fromSource.stdout}`);
    assert.equal(await importValue('acme_twine'), 'Acme.Twine 1.0');
  });

  test('.metadata of the uploaded wheel matches core-metadata.sha256 and the wheel METADATA bytes', async (t) => {
    if (!(await requireClients(t, ['twine', 'python'], clients))) return;
    assert.ok(acmeWheel, 'needs the upload of the previous test');
    const files = await simpleFiles(server.url, 'acme-twine');
    const wheelEntry = files.find((f) => f.filename === acmeWheel.filename)!;
    const core = wheelEntry['core-metadata'];
    assert.ok(core && typeof core === 'object', `core-metadata missing: ${JSON.stringify(wheelEntry)}`);
    const url = new URL(wheelEntry.url, `${server.url}/simple/acme-twine/`).toString();
    const res = await fetch(`${url}.metadata`);
    assert.equal(res.status, 200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const sha = createHash('sha256').update(bytes).digest('hex');
    assert.equal(sha, core.sha256);
    assert.equal(sha, acmeWheel.metadataSha256);
    assert.ok(bytes.equals(acmeWheel.metadata));
    // The sdist advertises none (sdists carry no trustworthy METADATA).
    assert.ok(!files.find((f) => f.filename === acmeSdist.filename)!['core-metadata']);

    // What pip installed from the wheel is that same METADATA.
    const installed = await pipInstall(venv!, `${server.url}/simple/`, ['--force-reinstall', '--only-binary', ':all:', 'acme-twine==1.0']);
    assert.equal(installed.code, 0, output(installed));
    const meta = await venv!.run(['-c', "import importlib.metadata as m, sys; sys.stdout.write(m.distribution('acme-twine').read_text('METADATA'))"]);
    assert.equal(meta.code, 0, output(meta));
    assert.equal(meta.stdout, acmeWheel.metadata.toString('utf8'));
  });

  test('API tokens: __token__ uploads; a token limited to another project is refused with 403', async (t) => {
    if (!(await requireClients(t, ['twine'], clients))) return;
    const mine = await server.addToken('alice', ['tok-proj']);
    const elsewhere = await server.addToken('alice', ['some-other-project']);
    const v1 = await buildWheel(join(tmp, 'tok'), { name: 'tok-proj', version: '1.0' });
    const v2 = await buildWheel(join(tmp, 'tok'), { name: 'tok-proj', version: '2.0' });

    const ok = await twine([v1.path], '__token__', mine);
    assert.equal(ok.code, 0, output(ok));

    const refused = await twine([v2.path], '__token__', elsewhere);
    assert.notEqual(refused.code, 0, output(refused));
    assert.match(output(refused), /403/);
    assert.match(output(refused), /The given token isn't allowed to upload to project 'tok-proj'/);

    const bogus = await twine([v2.path], '__token__', 'larder-not-a-real-token');
    assert.notEqual(bogus.code, 0, output(bogus));
    assert.match(output(bogus), /403/);

    const files = await simpleFiles(server.url, 'tok-proj');
    assert.deepEqual(
      files.map((f) => f.filename),
      [v1.filename],
    );
  });

  test('duplicate policy: identical re-upload succeeds; same filename with other bytes fails "File already exists"', async (t) => {
    if (!(await requireClients(t, ['twine'], clients))) return;
    const first = await buildWheel(join(tmp, 'dup-a'), { name: 'dup-proj', version: '1.0' });
    let r = await twine([first.path], 'alice', 'alice-password-1');
    assert.equal(r.code, 0, output(r));
    const serial = await server.larder.meta.lastSerial();

    const again = await buildWheel(join(tmp, 'dup-b'), { name: 'dup-proj', version: '1.0' });
    assert.equal(again.sha256, first.sha256, 'the rebuilt wheel has the same bytes');
    r = await twine([again.path], 'alice', 'alice-password-1');
    assert.equal(r.code, 0, output(r));
    assert.equal(await server.larder.meta.lastSerial(), serial, 'an identical re-upload changes nothing');

    const other = await buildWheel(join(tmp, 'dup-c'), { name: 'dup-proj', version: '1.0', modules: { 'dup_proj/__init__.py': 'VALUE = "other"\n' } });
    assert.equal(other.filename, first.filename);
    assert.notEqual(other.sha256, first.sha256);
    r = await twine([other.path], 'alice', 'alice-password-1');
    assert.notEqual(r.code, 0, output(r));
    assert.match(output(r), /File already exists/);
    assert.equal(await server.larder.meta.lastSerial(), serial);
    const files = await simpleFiles(server.url, 'dup-proj');
    assert.equal(files.length, 1);
    assert.equal(files[0]!.hashes.sha256, first.sha256);
  });

  test('missing credentials are a 401 challenge, a wrong password a 403 whose message twine shows', async (t) => {
    if (!(await requireClients(t, ['twine'], clients))) return;
    const dist = await buildWheel(join(tmp, 'auth'), { name: 'auth-proj', version: '1.0' });

    // What larder answers without credentials (twine, non-interactive, sends none when both are empty).
    const res = await fetch(repoUrl, { method: 'POST', body: await uploadForm(dist) });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Basic realm="larder"');

    const none = await twine([dist.path], '', '');
    assert.notEqual(none.code, 0, output(none));
    assert.match(output(none), /401/);

    const wrong = await twine([dist.path], 'alice', 'not-the-password');
    assert.notEqual(wrong.code, 0, output(wrong));
    assert.match(output(wrong), /403/);
    assert.match(output(wrong), /Invalid or non-existent authentication information/);

    // Another user's project (alice's, from the first test): 403 with the reason.
    if (acmeWheel) {
      const bobs = await twine([acmeWheel.path], 'bob', 'bob-password-1');
      assert.notEqual(bobs.code, 0, output(bobs));
      assert.match(output(bobs), /403/);
      assert.match(output(bobs), /isn't allowed to upload to project 'Acme.Twine'/);
    }
    const status = await fetch(`${server.url}/simple/auth-proj/`);
    assert.equal(status.status, 404, 'nothing was created by the refused uploads');
  });

  test('twine shows why a hostile distribution is refused: a Requires-Python that breaks out of an attribute, a second .dist-info', async (t) => {
    if (!(await requireClients(t, ['twine'], clients))) return;
    const attribute = await buildWheel(join(tmp, 'hostile-rp'), { name: 'hostile-rp', version: '1.0', requiresPython: '>=3.8"><script>' });
    let r = await twine([attribute.path], 'alice', 'alice-password-1');
    assert.notEqual(r.code, 0, output(r));
    assert.match(output(r), /400/);
    assert.match(output(r), /'>=3\.8"><script>' is invalid for 'requires-python': use PEP 440 version specifiers such as '>=3\.9'/);

    const twice = await buildWheel(join(tmp, 'hostile-di'), {
      name: 'hostile-di',
      version: '1.0',
      extraFiles: { 'other-2.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: other\nVersion: 2.0\n', 'other-2.0.dist-info/WHEEL': 'Wheel-Version: 1.0\n' },
    });
    r = await twine([twice.path], 'alice', 'alice-password-1');
    assert.notEqual(r.code, 0, output(r));
    assert.match(
      output(r),
      /Wheel has more than one \.dist-info directory \('other-2\.0\.dist-info' and 'hostile_di-1\.0\.dist-info'\); pip refuses to install it/,
    );
    for (const project of ['hostile-rp', 'hostile-di']) {
      assert.equal((await fetch(`${server.url}/simple/${project}/`)).status, 404, `${project}: nothing was created`);
    }
  });

  test('yank: unpinned pip install skips the yanked 2.0, ==2.0 still installs it', async (t) => {
    if (!(await requireClients(t, ['twine', 'python'], clients))) return;
    const v1 = await buildWheel(join(tmp, 'yank'), { name: 'yank-me', version: '1.0' });
    const v2 = await buildWheel(join(tmp, 'yank'), { name: 'yank-me', version: '2.0' });
    const up = await twine([v1.path, v2.path], 'alice', 'alice-password-1');
    assert.equal(up.code, 0, output(up));

    // Yank with the CLI, a second process on the same data directory, while the server runs.
    const cli = await runCommand(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', 'project', 'yank', 'yank-me', '2.0', '--reason', 'broken in prod', '--data', server.data],
      { cwd: REPO, env: { ...withoutLarderSettings(cleanEnv()), LARDER_UPSTREAM: 'none' }, timeoutMs: 60_000 },
    );
    assert.equal(cli.code, 0, output(cli));

    const files = await simpleFiles(server.url, 'yank-me');
    assert.equal(files.find((f) => f.filename === v2.filename)!.yanked, 'broken in prod');
    assert.ok(!files.find((f) => f.filename === v1.filename)!.yanked);

    const unpinned = await pipInstall(venv!, `${server.url}/simple/`, ['yank-me']);
    assert.equal(unpinned.code, 0, output(unpinned));
    assert.equal(await importValue('yank_me'), 'yank-me 1.0');

    const pinned = await pipInstall(venv!, `${server.url}/simple/`, ['yank-me==2.0']);
    assert.equal(pinned.code, 0, output(pinned));
    assert.equal(await importValue('yank_me'), 'yank-me 2.0');
    assert.match(output(pinned), /yanked/i, 'pip warns that it installs a yanked release');
    assert.match(output(pinned), /broken in prod/);
  });

  test('LARDER_READ_AUTH=true: pip without credentials fails, with user:pass in the index URL it installs', async (t) => {
    if (!(await requireClients(t, ['python'], clients))) return;
    const guarded = await startLarder({ readAuth: true });
    try {
      await guarded.addUser('carol', 'carol-password-1');
      const dist = await buildWheel(join(tmp, 'guarded'), { name: 'guarded-proj', version: '1.0' });
      const up = await fetch(`${guarded.url}/legacy/`, {
        method: 'POST',
        body: await uploadForm(dist),
        headers: { Authorization: basicAuth('carol', 'carol-password-1') },
      });
      assert.equal(up.status, 200, up.statusText);
      const anonymous = await fetch(`${guarded.url}/simple/guarded-proj/`);
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic realm=/);

      const without = await pipInstall(venv!, `${guarded.url}/simple/`, ['guarded-proj']);
      assert.notEqual(without.code, 0, output(without));
      const check = await venv!.run(['-c', 'import guarded_proj']);
      assert.notEqual(check.code, 0, 'nothing was installed');

      const authed = new URL(`${guarded.url}/simple/`);
      authed.username = 'carol';
      authed.password = 'carol-password-1';
      const withCreds = await pipInstall(venv!, authed.toString(), ['guarded-proj']);
      assert.equal(withCreds.code, 0, output(withCreds));
      assert.equal(await importValue('guarded_proj'), 'guarded-proj 1.0');
    } finally {
      await guarded.close();
    }
  });
});
