/**
 * The README's client snippets, run exactly as written against a real larder (with a fake upstream behind
 * it): each block marked `<!-- snippet: NAME -->` is read from README.md, only the placeholders are
 * replaced (`larder.example:3142`, `larder.example`, `SECRET`, the `larder-XXX…` token; the user is `alice`
 * here too), and it is run by `sh` or written where its client reads it, in a temp HOME / project.
 *
 * Publishers: twine, flit (.pypirc and FLIT_* variables), poetry, pdm. Installers: pip (command line and
 * pip.conf), pipenv, poetry, pdm; each installs the private `acme-widgets`, which exists only in larder,
 * and its dependency `tinydep`, which larder fetches from the fake upstream (its request log proves it).
 *
 * larder listens on this machine's first non-loopback IPv4 address when there is one, so that the
 * clients treat it as the remote host it is in the README (pip and unearth trust plain http only on
 * loopback addresses).
 *
 * Every client runs with HOME in a temp directory, no PIP_* / TWINE_* / UV_* variables, and (except
 * the pip.conf test, which needs config files) PIP_CONFIG_FILE=/dev/null.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { cleanEnv, makeVenv, runCommand, type CommandResult } from '../fixtures/clients.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { cliEnv, REPO } from '../helpers/child-server.js';
import { eventually } from '../helpers/eventually.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';

const README = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
const PIP_ACCEPT = 'application/vnd.pypi.simple.v1+json';
const PASSWORD = 'alice-password-1';
const PATH = `/usr/bin:/bin:${process.env.PATH ?? ''}`;

const show = (r: CommandResult) =>
  `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');

/** The fenced block after `<!-- snippet: NAME -->`. */
function readmeSnippet(name: string): string {
  const re = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\`\\n`);
  const m = re.exec(README);
  assert.ok(m, `README.md has no snippet ${name}`);
  return m[1]!;
}

/** Without PYENV_*: pipenv prefers a pyenv Python when PYENV_ROOT is set, even over PIPENV_PYTHON. */
function withoutPyenv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('PYENV_')));
}

function nonLoopbackIPv4(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** A real client command, or null. */
async function client(cmd: string): Promise<string | null> {
  const r = await runCommand(cmd, ['--version'], { env: cleanEnv({ PATH }), timeoutMs: 60_000 });
  return r.code === 0 ? cmd : null;
}

/** Skips (or, under CI, fails) when a client is missing. */
function need(t: TestContext, found: string | null, what: string): boolean {
  if (found) return true;
  const reason = `missing client: ${what}`;
  if (process.env.CI) throw new Error(`${reason}; real-client tests must run in CI`);
  t.skip(reason);
  return false;
}

/** A poetry (1.x layout) project that depends on acme-widgets. */
function poetryApp(name: string): string {
  return [
    '[tool.poetry]',
    `name = "${name}"`,
    'version = "0.1.0"',
    'description = "installs through larder"',
    'authors = ["Alice <alice@example.test>"]',
    '',
    '[tool.poetry.dependencies]',
    'python = "^3.8"',
    'acme-widgets = "*"',
    '',
  ].join('\n');
}

/** A poetry (1.x layout) library project, version 1.0, ready to build and publish. */
async function poetryLibrary(dir: string, name: string, description: string): Promise<void> {
  const module = name.replace(/-/g, '_');
  await writeFiles(dir, {
    'pyproject.toml': [
      '[tool.poetry]',
      `name = "${name}"`,
      'version = "1.0"',
      `description = "${description}"`,
      'authors = ["Alice <alice@example.test>"]',
      '',
      '[tool.poetry.dependencies]',
      'python = ">=3.7"',
      '',
      '[build-system]',
      'requires = ["poetry-core"]',
      'build-backend = "poetry.core.masonry.api"',
      '',
    ].join('\n'),
    [`${module}/__init__.py`]: `VALUE = "${name} 1.0"\n`,
  });
}

async function startTrap(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/simple`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function pythonFiles(root: string, into: Record<string, Buffer>, prefix: string): Promise<void> {
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__pycache__' && entry.name !== 'tests') await pythonFiles(path, into, `${prefix}${entry.name}/`);
    } else if (!entry.name.endsWith('.pyc')) {
      into[`${prefix}${entry.name}`] = await readFile(path);
    }
  }
}

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

describe('README client snippets, run as written', { timeout: 1_200_000 }, () => {
  let tmp: string;
  let up: FakeUpstream;
  let server: TestLarder;
  let hostPort: string;
  let host: string;
  let token: string;
  let tinydep: BuiltDist;
  let acme: BuiltDist;
  const found: Record<string, string | null> = {};
  let python: string | null = null;
  /** An index that answers 404 to everything and logs the paths: stands in for pypi.org. */
  let trap: { url: string; requests: string[]; close(): Promise<void> };

  /** The placeholders of a snippet replaced by this test's server and credentials. */
  const fill = (text: string): string =>
    text
      .replaceAll('larder.example:3142', hostPort)
      .replaceAll('larder.example', host)
      .replaceAll('SECRET', PASSWORD)
      .replace(/larder-X{10,}/g, token);

  const newHome = async (name: string): Promise<string> => {
    const home = join(tmp, `home-${name}`);
    await mkdir(join(home, '.config'), { recursive: true });
    return home;
  };

  /** The environment every client gets: temp HOME, no pip/twine/uv settings, no keyring. */
  const envFor = (home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv =>
    withoutPyenv(
      cleanEnv({
        HOME: home,
        PATH,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        PYTHON_KEYRING_BACKEND: 'keyring.backends.null.Keyring',
        PIP_CONFIG_FILE: '/dev/null',
        PIP_NO_INPUT: '1',
        PIP_DISABLE_PIP_VERSION_CHECK: '1',
        COLUMNS: '200',
        ...extra,
      }),
    );

  const sh = (script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 240_000) => runCommand('sh', ['-ec', script], { cwd, env, timeoutMs });

  const filesOf = async (project: string): Promise<string[]> => {
    const res = await fetch(`${server.url}/simple/${project}/`, { headers: { Accept: PIP_ACCEPT } });
    if (res.status === 404) return [];
    assert.equal(res.status, 200, `${project}: ${res.status}`);
    return ((await res.json()) as { files: { filename: string }[] }).files.map((f) => f.filename).sort();
  };

  /** What the client built into `dist/`: a wheel and an sdist, whose names depend on the backend's version. */
  const built = async (project: string): Promise<string[]> => {
    const names = (await readdir(join(project, 'dist'))).sort();
    assert.equal(names.filter((n) => n.endsWith('.whl')).length, 1, names.join(' '));
    assert.equal(names.filter((n) => n.endsWith('.tar.gz')).length, 1, names.join(' '));
    return names;
  };

  /** tinydep's wheel came from the fake upstream, through larder (nothing else knows the upstream). */
  const assertProxied = () => {
    const fetched = up.requestsTo('/files/').filter((r) => !r.path.endsWith('.metadata'));
    assert.ok(
      fetched.some((r) => decodeURIComponent(r.path).endsWith(tinydep.filename)),
      `larder fetched ${tinydep.filename} from the upstream: ${fetched.map((r) => r.path).join(' ')}`,
    );
  };

  const assertImports = async (pythonPath: string, env: NodeJS.ProcessEnv) => {
    const r = await runCommand(pythonPath, ['-c', 'import acme_widgets, tinydep; print(acme_widgets.VALUE, tinydep.VALUE)'], { env });
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stdout.trim(), 'acme-widgets 1.0 tinydep 1.0');
  };

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'larder-readme-'));
    for (const c of ['twine', 'flit', 'poetry', 'pdm', 'pipenv']) found[c] = await client(c);
    const py = await runCommand('/usr/bin/python3', ['-c', 'import venv, ensurepip'], { env: cleanEnv() });
    python = py.code === 0 ? '/usr/bin/python3' : null;

    up = await startFakeUpstream();
    tinydep = await buildWheel(join(tmp, 'dists'), { name: 'tinydep', version: '1.0' });
    up.addProject('tinydep', [tinydep]);
    // pdm builds in an isolated environment and installs the build backend from the project's source
    // (larder): the upstream serves a wheel of this machine's flit_core (pure Python, no dependencies).
    if (found.pdm || found.flit) {
      const where = await runCommand(
        '/usr/bin/python3',
        ['-c', 'import flit_core, os; print(os.path.dirname(flit_core.__file__)); print(flit_core.__version__)'],
        { env: cleanEnv() },
      );
      if (where.code === 0) {
        const [dir, version] = where.stdout.trim().split('\n') as [string, string];
        const modules: Record<string, Buffer> = {};
        await pythonFiles(dir, modules, 'flit_core/');
        const flitCore = await buildWheel(join(tmp, 'dists'), {
          name: 'flit_core',
          version,
          requiresPython: '>=3.6',
          modules: Object.fromEntries(Object.entries(modules).map(([k, v]) => [k, v.toString('utf8')])),
        });
        up.addProject('flit-core', [flitCore]);
      }
    }

    trap = await startTrap();
    host = nonLoopbackIPv4();
    server = await startLarder({ host, upstream: up.url });
    hostPort = new URL(server.url).host;
    await server.addUser('alice', PASSWORD);
    token = await server.addToken('alice');
    acme = await buildWheel(join(tmp, 'dists'), { name: 'acme-widgets', version: '1.0', requiresDist: ['tinydep'] });
    const res = await fetch(`${server.url}/legacy/`, {
      method: 'POST',
      body: await uploadForm(acme),
      headers: { Authorization: basicAuth('alice', PASSWORD) },
    });
    assert.equal(res.status, 200, res.statusText);
  });
  after(async () => {
    await server?.close();
    await up?.close();
    await trap?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  // ---- installers

  test('pip: the command line snippet installs the private package and its upstream dependency', async (t) => {
    if (!need(t, python, 'python3 with venv (apt install python3-venv)')) return;
    const venv = await makeVenv(join(tmp, 'venv-pip'), python!);
    const home = await newHome('pip');
    const env = envFor(home, { PATH: `${join(venv.dir, 'bin')}:${PATH}`, PIP_NO_CACHE_DIR: '1' });
    if (host !== '127.0.0.1') {
      // Why the snippet says --trusted-host: without it pip ignores a plain-http index on another host.
      const untrusted = await runCommand(venv.python, ['-m', 'pip', 'install', '--index-url', `${server.url}/simple/`, 'acme-widgets'], {
        env,
        timeoutMs: 120_000,
      });
      assert.notEqual(untrusted.code, 0, show(untrusted));
      assert.match(show(untrusted).replace(/\s+/g, ' '), /is not a trusted or secure host and is being ignored/);
    }
    const r = await sh(fill(readmeSnippet('pip-install')), tmp, env);
    assert.equal(r.code, 0, show(r));
    assert.ok(r.stdout.includes(acme.filename), show(r));
    await assertImports(venv.python, env);
    assertProxied();
  });

  test('pip: pip.conf from the snippet (and nothing from this machine) installs through larder', async (t) => {
    if (!need(t, python, 'python3 with venv (apt install python3-venv)')) return;
    const venv = await makeVenv(join(tmp, 'venv-pipconf'), python!);
    const home = await newHome('pipconf');
    await writeFiles(home, { '.config/pip/pip.conf': fill(readmeSnippet('pip-conf')) });
    // No PIP_CONFIG_FILE: pip reads the user file; XDG_CONFIG_DIRS hides this machine's /etc/xdg/pip.
    const env = envFor(home, { PATH: `${join(venv.dir, 'bin')}:${PATH}`, XDG_CONFIG_DIRS: join(home, 'no-xdg'), PIP_NO_CACHE_DIR: '1' });
    delete env.PIP_CONFIG_FILE;
    const config = await runCommand(venv.python, ['-m', 'pip', 'config', 'list'], { env });
    assert.equal(config.code, 0, show(config));
    const keys = config.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('=')[0] ?? '');
    // Only the snippet's settings (this machine's /etc/pip.conf sets nothing but `cert`; `:env:` are ours).
    const files = keys.filter((k) => !k.startsWith(':env:') && k !== 'global.cert').sort();
    assert.deepEqual(files, ['global.index-url', 'global.trusted-host'], config.stdout);
    const r = await runCommand(venv.python, ['-m', 'pip', 'install', 'acme-widgets'], { env, timeoutMs: 240_000 });
    assert.equal(r.code, 0, show(r));
    await assertImports(venv.python, env);
  });

  test('pipenv: the Pipfile snippet, then `pipenv install`', async (t) => {
    if (!need(t, found.pipenv!, 'pipenv (apt install pipenv)')) return;
    const home = await newHome('pipenv');
    const project = join(tmp, 'pipenv-project');
    await writeFiles(project, { Pipfile: fill(readmeSnippet('pipenv-pipfile')) });
    // PIPENV_PYTHON: Debian's python3, whose virtualenv seed wheels Debian ships.
    const env = envFor(home, {
      PIPENV_PYTHON: '/usr/bin/python3',
      PIPENV_VENV_IN_PROJECT: '1',
      PIPENV_NOSPIN: '1',
      PIPENV_YES: '1',
      PIPENV_IGNORE_VIRTUALENVS: '1',
      PIP_NO_CACHE_DIR: '1',
    });
    const r = await sh('pipenv install', project, env, 400_000);
    assert.equal(r.code, 0, show(r));
    await assertImports(join(project, '.venv', 'bin', 'python'), env);
  });

  test('poetry (< 1.5): `poetry source add --default`, then `poetry install`', async (t) => {
    if (!need(t, found.poetry!, 'poetry (apt install python3-poetry)')) return;
    const home = await newHome('poetry');
    const project = join(tmp, 'poetry-app');
    await writeFiles(project, { 'pyproject.toml': poetryApp('poetry-app') });
    const env = envFor(home, { POETRY_VIRTUALENVS_IN_PROJECT: 'true', POETRY_CACHE_DIR: join(home, 'poetry-cache'), POETRY_NO_INTERACTION: '1' });
    const source = await sh(fill(readmeSnippet('poetry-source-pre-1.5')), project, env);
    assert.equal(source.code, 0, show(source));
    const r = await sh('poetry install --no-root', project, env, 400_000);
    assert.equal(r.code, 0, show(r));
    await assertImports(join(project, '.venv', 'bin', 'python'), env);
  });

  test('poetry with LARDER_READ_AUTH=true: the same http-basic entry serves reads', async (t) => {
    if (!need(t, found.poetry!, 'poetry (apt install python3-poetry)')) return;
    const guarded = await startLarder({ host, upstream: up.url, readAuth: true });
    try {
      await guarded.addUser('alice', PASSWORD);
      const res = await fetch(`${guarded.url}/legacy/`, {
        method: 'POST',
        body: await uploadForm(acme),
        headers: { Authorization: basicAuth('alice', PASSWORD) },
      });
      assert.equal(res.status, 200, res.statusText);
      assert.equal((await fetch(`${guarded.url}/simple/acme-widgets/`)).status, 401);
      const fillGuarded = (text: string) => fill(text).replaceAll(hostPort, new URL(guarded.url).host);
      const home = await newHome('poetry-guarded');
      const project = join(tmp, 'poetry-guarded');
      await writeFiles(project, { 'pyproject.toml': poetryApp('poetry-guarded') });
      const env = envFor(home, { POETRY_VIRTUALENVS_IN_PROJECT: 'true', POETRY_CACHE_DIR: join(home, 'poetry-cache'), POETRY_NO_INTERACTION: '1' });
      const setup = await sh(`${fillGuarded(readmeSnippet('poetry-source-pre-1.5'))}${fillGuarded(readmeSnippet('poetry-credentials'))}`, project, env);
      assert.equal(setup.code, 0, show(setup));
      const r = await sh('poetry install --no-root', project, env, 400_000);
      assert.equal(r.code, 0, show(r));
      await assertImports(join(project, '.venv', 'bin', 'python'), env);
    } finally {
      await guarded.close();
    }
  });

  test('pdm: a source named `pypi` from the snippet, then `pdm install`', async (t) => {
    if (!need(t, found.pdm!, 'pdm (apt install python3-pdm)')) return;
    const home = await newHome('pdm');
    const project = join(tmp, 'pdm-app');
    await writeFiles(project, {
      'pyproject.toml': [
        '[project]',
        'name = "pdm-app"',
        'version = "0.1.0"',
        'requires-python = ">=3.8"',
        'dependencies = ["acme-widgets"]',
        '',
        fill(readmeSnippet('pdm-source')),
      ].join('\n'),
    });
    // PDM_PYPI_URL points pdm's implicit PyPI at a trap: the source named `pypi` must replace it.
    const env = envFor(home, { PDM_CHECK_UPDATE: 'false', PDM_PYPI_URL: trap.url });
    if (host !== '127.0.0.1') {
      // Why the snippet says verify_ssl = false: without it pdm (unearth) ignores a plain-http source on another host.
      const strict = join(tmp, 'pdm-app-strict');
      const toml = (await readFile(join(project, 'pyproject.toml'), 'utf8')).replace(/^verify_ssl = false\n/m, '');
      await writeFiles(strict, { 'pyproject.toml': toml });
      const refused = await sh('pdm lock -v', strict, env, 400_000);
      assert.notEqual(refused.code, 0, show(refused));
      assert.match(show(refused).replace(/\s+/g, ' '), /for not being trusted/);
    }
    const r = await sh('pdm install --no-self', project, env, 400_000);
    assert.equal(r.code, 0, show(r));
    await assertImports(join(project, '.venv', 'bin', 'python'), env);
    assert.deepEqual(trap.requests, [], 'pdm asked its implicit PyPI');
  });

  test('pdm: a source under any other name is searched besides PyPI (why the snippet names it `pypi`)', async (t) => {
    if (!need(t, found.pdm!, 'pdm (apt install python3-pdm)')) return;
    const home = await newHome('pdm-larder');
    const project = join(tmp, 'pdm-app-larder');
    await writeFiles(project, {
      'pyproject.toml': [
        '[project]',
        'name = "pdm-app-larder"',
        'version = "0.1.0"',
        'requires-python = ">=3.8"',
        'dependencies = ["acme-widgets"]',
        '',
        fill(readmeSnippet('pdm-source')).replace('name = "pypi"', 'name = "larder"'),
      ].join('\n'),
    });
    trap.requests.length = 0;
    await sh('pdm lock', project, envFor(home, { PDM_CHECK_UPDATE: 'false', PDM_PYPI_URL: trap.url }), 400_000);
    assert.ok(
      trap.requests.some((p) => p.includes('acme-widgets')),
      `the implicit PyPI was asked too: ${trap.requests.join(' ')}`,
    );
  });

  // ---- publishers

  const flitProject = async (dir: string, name: string, version: string, extraToml = '') => {
    const module = name.replace(/-/g, '_');
    await writeFiles(dir, {
      'pyproject.toml': [
        '[build-system]',
        'requires = ["flit_core >=3.2,<4"]',
        'build-backend = "flit_core.buildapi"',
        '',
        '[project]',
        `name = "${name}"`,
        `version = "${version}"`,
        `description = "${name} published through larder"`,
        'requires-python = ">=3.7"',
        '',
        extraToml,
      ].join('\n'),
      [`${module}/__init__.py`]: `VALUE = "${name} ${version}"\n`,
    });
  };

  test('twine: ~/.pypirc from the snippet (token), then `twine upload --repository larder dist/*`', async (t) => {
    if (!need(t, found.twine!, 'twine (apt install twine)')) return;
    const home = await newHome('twine');
    await writeFiles(home, { '.pypirc': fill(readmeSnippet('pypirc')) });
    const project = join(tmp, 'twine-project');
    const wheel = await buildWheel(join(project, 'dist'), { name: 'twine-demo', version: '1.0' });
    const r = await sh(`${fill(readmeSnippet('twine-upload'))}`, project, envFor(home, { TWINE_NON_INTERACTIVE: '1' }));
    assert.equal(r.code, 0, show(r));
    assert.deepEqual(await filesOf('twine-demo'), [wheel.filename]);
  });

  test('twine: --repository-url without the trailing slash (/legacy) uploads', async (t) => {
    if (!need(t, found.twine!, 'twine (apt install twine)')) return;
    const home = await newHome('twine-noslash');
    const wheel = await buildWheel(join(tmp, 'noslash'), { name: 'no-slash-demo', version: '1.0' });
    const r = await runCommand(
      found.twine!,
      ['upload', '--non-interactive', '--disable-progress-bar', '--repository-url', `${server.url}/legacy`, '-u', 'alice', '-p', PASSWORD, wheel.path],
      { env: envFor(home), timeoutMs: 120_000 },
    );
    assert.equal(r.code, 0, show(r));
    assert.deepEqual(await filesOf('no-slash-demo'), [wheel.filename]);
  });

  test('flit: ~/.pypirc from the snippet, then `flit publish --repository larder`', async (t) => {
    if (!need(t, found.flit!, 'flit (apt install flit)')) return;
    const home = await newHome('flit');
    await writeFiles(home, { '.pypirc': fill(readmeSnippet('pypirc')) });
    const project = join(tmp, 'flit-project');
    await flitProject(project, 'flit-demo', '1.0');
    const r = await sh(fill(readmeSnippet('flit-publish')), project, envFor(home));
    assert.equal(r.code, 0, show(r));
    assert.deepEqual(await filesOf('flit-demo'), await built(project));
  });

  test('flit: FLIT_INDEX_URL / FLIT_USERNAME / FLIT_PASSWORD from the snippet', async (t) => {
    if (!need(t, found.flit!, 'flit (apt install flit)')) return;
    const home = await newHome('flit-env');
    const project = join(tmp, 'flit-env-project');
    await flitProject(project, 'flit-env-demo', '1.0');
    const r = await sh(fill(readmeSnippet('flit-env')), project, envFor(home));
    assert.equal(r.code, 0, show(r));
    assert.deepEqual(await filesOf('flit-env-demo'), await built(project));
  });

  test('poetry: `poetry config repositories/http-basic` under one name, then `poetry publish --build`', async (t) => {
    if (!need(t, found.poetry!, 'poetry (apt install python3-poetry)')) return;
    const home = await newHome('poetry-publish');
    const project = join(tmp, 'poetry-demo');
    await poetryLibrary(project, 'poetry-demo', 'poetry publishes through larder');
    const env = envFor(home, { POETRY_CACHE_DIR: join(home, 'poetry-cache'), POETRY_NO_INTERACTION: '1' });
    const r = await sh(`${fill(readmeSnippet('poetry-credentials'))}${fill(readmeSnippet('poetry-publish'))}`, project, env);
    assert.equal(r.code, 0, show(r));
    assert.deepEqual(await filesOf('poetry-demo'), await built(project));
  });

  test('poetry: credentials under another name than the upload repository are not sent (the old README did that)', async (t) => {
    if (!need(t, found.poetry!, 'poetry (apt install python3-poetry)')) return;
    const home = await newHome('poetry-misnamed');
    const project = join(tmp, 'poetry-misnamed');
    await poetryLibrary(project, 'poetry-misnamed', 'credentials under the wrong name');
    const env = envFor(home, { POETRY_CACHE_DIR: join(home, 'poetry-cache'), POETRY_NO_INTERACTION: '1' });
    const script = `${fill(readmeSnippet('poetry-credentials'))}${fill(readmeSnippet('poetry-publish'))}`
      .replace(/repositories\.larder /, 'repositories.larder-upload ')
      .replace(/--repository larder/, '--repository larder-upload');
    assert.match(script, /http-basic\.larder alice/);
    const r = await sh(script, project, env);
    assert.notEqual(r.code, 0, show(r));
    assert.match(show(r), /401/);
    assert.deepEqual(await filesOf('poetry-misnamed'), []);
  });

  test('pdm: `pdm config repository.larder.*`, then `pdm publish --repository larder` (builds with flit_core from larder)', async (t) => {
    if (!need(t, found.pdm!, 'pdm (apt install python3-pdm)')) return;
    const home = await newHome('pdm-publish');
    const project = join(tmp, 'pdm-demo');
    await flitProject(project, 'pdm-demo', '1.0', fill(readmeSnippet('pdm-source')));
    const env = envFor(home, { PDM_CHECK_UPDATE: 'false', PDM_PYPI_URL: trap.url });
    const r = await sh(fill(readmeSnippet('pdm-publish')), project, env, 400_000);
    assert.equal(r.code, 0, show(r));
    assert.deepEqual(await filesOf('pdm-demo'), await built(project));
    assert.ok(
      up.requestsTo('/files/').some((r) => r.path.includes('flit_core')),
      'the build backend came through larder',
    );
    assert.ok(!trap.requests.some((p) => p.includes('flit')), `pdm asked its implicit PyPI: ${trap.requests.join(' ')}`);
  });
});

/**
 * The README's quick start, as a newcomer runs it: `npm start` in the checkout (port and data directory
 * moved by environment variables, the README's `localhost:3142` replaced by that port), the admin and token
 * commands in the checkout, then twine and pip in a project of the user's.
 */
describe('README quick start, run as written', { timeout: 600_000 }, () => {
  let tmp: string;
  let up: FakeUpstream;
  let server: ChildProcess | undefined;
  let serverOutput = '';
  let port: number;

  const freePort = async (): Promise<number> => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port: free } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return free;
  };

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'larder-quick-start-'));
    up = await startFakeUpstream();
    up.addProject('tinydep', [await buildWheel(join(tmp, 'dists'), { name: 'tinydep', version: '1.0' })]);
    port = await freePort();
  });
  after(async () => {
    if (server?.pid !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      process.kill(-server.pid, 'SIGTERM');
      await exited;
    }
    await up?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  test('npm start, an admin and a token, twine upload, pip install', async (t) => {
    if (!need(t, await client('twine'), 'twine (apt install twine)')) return;
    const larderEnv = cliEnv({ LARDER_PORT: String(port), LARDER_DATA: join(tmp, 'data'), LARDER_UPSTREAM: up.url });
    server = spawn('sh', ['-ec', 'npm start'], { cwd: REPO, env: larderEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    server.stdout!.setEncoding('utf8').on('data', (d: string) => (serverOutput += d));
    server.stderr!.setEncoding('utf8').on('data', (d: string) => (serverOutput += d));
    const base = `http://127.0.0.1:${port}`;
    const serving = () =>
      fetch(`${base}/health`).then(
        (res) => res.ok,
        () => false,
      );
    await eventually(async () => (await serving()) || server!.exitCode !== null, 'npm start to serve', 180_000);
    assert.ok(await serving(), `npm start did not serve:\n${serverOutput}`);
    assert.equal((await fetch(`${base}/simple/`)).status, 200);

    const admin = await runCommand('sh', ['-ec', readmeSnippet('quick-start-admin')], { cwd: REPO, env: larderEnv, timeoutMs: 120_000 });
    assert.equal(admin.code, 0, show(admin));
    const token = admin.stdout.trim().split('\n').at(-1)!;
    assert.match(token, /^larder-\S{20,}$/, show(admin));

    const project = join(tmp, 'acme-widgets');
    const acme = await buildWheel(join(project, 'dist'), { name: 'acme-widgets', version: '1.0', requiresDist: ['tinydep'] });
    const venv = await makeVenv(join(tmp, 'venv'));
    const home = join(tmp, 'home');
    await mkdir(home, { recursive: true });
    const env = cleanEnv({
      HOME: home,
      PATH: `${join(venv.dir, 'bin')}:${PATH}`,
      PIP_CONFIG_FILE: '/dev/null',
      PIP_NO_INPUT: '1',
      PIP_NO_CACHE_DIR: '1',
      PIP_DISABLE_PIP_VERSION_CHECK: '1',
      TWINE_NON_INTERACTIVE: '1',
      PYTHON_KEYRING_BACKEND: 'keyring.backends.null.Keyring',
    });
    const use = readmeSnippet('quick-start-use')
      .replaceAll('localhost:3142', `localhost:${port}`)
      .replace(/larder-X{10,}/g, token);
    const r = await runCommand('sh', ['-ec', use], { cwd: project, env, timeoutMs: 240_000 });
    assert.equal(r.code, 0, show(r));
    const installed = await runCommand(venv.python, ['-c', 'import acme_widgets, tinydep; print(acme_widgets.VALUE, tinydep.VALUE)'], { env });
    assert.equal(installed.stdout.trim(), 'acme-widgets 1.0 tinydep 1.0', show(installed));
    assert.ok(
      up.requestsTo('/files/').some((req) => req.path.includes('tinydep')),
      'the dependency came from the upstream through larder',
    );
    assert.ok(r.stdout.includes(acme.filename), show(r));
  });
});
