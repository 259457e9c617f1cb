/**
 * The `larder` command line: help, users, tokens, errors and the project commands against a data directory a
 * running server also uses, run in this process (test/helpers/cli.ts); `serve` runs as a real child process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { hashToken } from '../../src/auth/tokens.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import { buildWheel } from '../fixtures/dists.js';
import { cliEnv } from '../helpers/child-server.js';
import { assertCliOk as assertOk, runLarderCli as larder, type CliResult } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { uploadForm } from '../helpers/upload-form.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(REPO, 'src', 'main.ts');

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/** A failed command: non-zero exit, exactly one line on stderr, nothing half-done on stdout. */
function assertOneLineError(r: CliResult, pattern: RegExp): string {
  assert.notEqual(r.code, 0, `expected a failure: ${r.stdout}`);
  const err = lines(r.stderr);
  assert.equal(err.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(err[0]!, pattern);
  return err[0]!;
}

const SUBCOMMANDS = [
  'serve',
  'user add',
  'user list',
  'user remove',
  'token create',
  'token list',
  'token revoke',
  'project yank',
  'project unyank',
  'project remove',
  'project add-maintainer',
  'project allow-name',
];

describe('larder CLI', () => {
  const tmp = suiteTempDir('larder-cli-');
  const data = join(tmp, 'data');

  test('--help for the main command and every subcommand exits 0 and prints usage', async () => {
    const main = await larder(['--help']);
    assertOk(main);
    assert.match(main.stdout, /^usage: larder /m);
    for (const name of SUBCOMMANDS) assert.ok(main.stdout.includes(`  ${name} `), `main help lists ${name}`);
    assert.equal(main.stderr, '');

    const results = await Promise.all(SUBCOMMANDS.map((name) => larder([...name.split(' '), '--help'])));
    results.forEach((r, i) => {
      const name = SUBCOMMANDS[i]!;
      assertOk(r);
      assert.match(r.stdout, new RegExp(`^usage: larder ${name}\\b`, 'm'), `${name} --help:\n${r.stdout}`);
      assert.match(r.stdout, /--data /, `${name} --help names the data directory setting`);
      assert.equal(r.stderr, '');
    });
    // The group help too.
    const group = await larder(['token', '--help']);
    assertOk(group);
    for (const c of ['token create', 'token list', 'token revoke']) assert.ok(group.stdout.includes(`larder ${c}`));
  });

  test('users and tokens: add, list, create (token last), list without the token, revoke, remove', async () => {
    const env = { LARDER_DATA: data };
    const add = await larder(['user', 'add', 'alice', '--password-stdin'], { input: 'alice-password-1\n', env });
    assertOk(add);
    assert.match(add.stdout, /alice/);
    const addAdmin = await larder(['user', 'add', 'root', '--password-stdin', '--admin', '--data', data], { input: 'root-password-1' });
    assertOk(addAdmin);

    const list = await larder(['user', 'list', '--data', data]);
    assertOk(list);
    const rows = lines(list.stdout);
    assert.match(rows[0]!, /NAME/);
    assert.ok(
      rows.some((r) => /^alice\s+no\b/.test(r)),
      list.stdout,
    );
    assert.ok(
      rows.some((r) => /^root\s+yes\b/.test(r)),
      list.stdout,
    );

    const created = await larder(['token', 'create', 'alice', '--project', 'Foo_Bar', '--description', 'ci token', '--data', data]);
    assertOk(created);
    const out = lines(created.stdout);
    const token = out[out.length - 1]!.trim();
    assert.match(token, /^larder-[A-Za-z0-9_-]{20,}$/);
    const id = hashToken(token).slice(0, 12);

    // The store holds the hash, limited to the normalized project name; never the token.
    const storage = openStorage(data);
    const meta = storage.index;
    try {
      const record = await meta.getTokenByHash(hashToken(token));
      assert.ok(record);
      assert.equal(record.user, 'alice');
      assert.deepEqual(record.projects, ['foo-bar']);
      assert.equal(record.description, 'ci token');
      assert.ok(!JSON.stringify(await meta.listTokens()).includes(token));
    } finally {
      await storage.close();
    }

    const tokens = await larder(['token', 'list', '--data', data]);
    assertOk(tokens);
    assert.ok(tokens.stdout.includes(id), tokens.stdout);
    assert.ok(tokens.stdout.includes('foo-bar'));
    assert.ok(tokens.stdout.includes('ci token'));
    assert.ok(!tokens.stdout.includes(token), 'the token is never shown again');
    assert.ok(!tokens.stdout.includes(token.slice('larder-'.length, 20)));

    const revoke = await larder(['token', 'revoke', id, '--data', data]);
    assertOk(revoke);
    const after = await larder(['token', 'list', '--data', data]);
    assertOk(after);
    assert.ok(!after.stdout.includes(id), after.stdout);
    assertOneLineError(await larder(['token', 'revoke', id, '--data', data]), new RegExp(id));

    // Removing a user revokes their tokens.
    const second = await larder(['token', 'create', 'root', '--data', data]);
    assertOk(second);
    const secondId = hashToken(lines(second.stdout).at(-1)!.trim()).slice(0, 12);
    const removed = await larder(['user', 'remove', 'root', '--data', data]);
    assertOk(removed);
    const users = await larder(['user', 'list', '--data', data]);
    assert.ok(!/^root\s/m.test(users.stdout), users.stdout);
    assert.ok(/^alice\s/m.test(users.stdout));
    const left = await larder(['token', 'list', '--data', data]);
    assert.ok(!left.stdout.includes(secondId), left.stdout);
  });

  test('errors exit non-zero with one line on stderr', async () => {
    const data = join(tmp, 'errors-data');
    const cases: [string[], RegExp, { input?: string; env?: NodeJS.ProcessEnv }?][] = [
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['user', 'frobnicate'], /unknown command 'user frobnicate'/],
      [['user', 'add', '--data', data], /usage: larder user add/],
      [['user', 'list', '--no-such-flag', '--data', data], /no-such-flag/],
      [['user', 'add', 'dave', '--data', data], /--password-stdin/, { input: 'dave-password-1' }],
      [['user', 'add', 'dave', '--password-stdin', '--data', data], /at least 8 characters/, { input: 'short\n' }],
      [['user', 'add', 'bad name!', '--password-stdin', '--data', data], /invalid user name/, { input: 'dave-password-1' }],
      [['user', 'remove', 'nobody', '--data', data], /no user named 'nobody'/],
      [['token', 'create', 'nobody', '--data', data], /no user named 'nobody'/],
      [['token', 'revoke', 'ffffffffffff', '--data', data], /ffffffffffff/],
      [['project', 'yank', 'no-such-project', '1.0', '--data', data], /no-such-project/],
      [['serve', 'extra', '--port', '0', '--data', data], /unexpected argument 'extra'/],
    ];
    const results = await Promise.all(cases.map(([args, , opts]) => larder(args, opts)));
    for (const [i, r] of results.entries()) assertOneLineError(r, cases[i]![1]);

    // A user that exists already.
    const dup = await larder(['user', 'add', 'dup', '--password-stdin', '--data', data], { input: 'dup-password-1' });
    assertOk(dup);
    assertOneLineError(await larder(['user', 'add', 'dup', '--password-stdin', '--data', data], { input: 'dup-password-1' }), /already exists/);
  });

  test('bad configuration values name the key, the value and what is expected', async () => {
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['user', 'list', '--data', data], { LARDER_PORT: 'abc' }, /LARDER_PORT.*"abc".*expected an integer from 0 to 65535/],
      [['serve', '--port', 'x1', '--data', data], {}, /--port.*"x1".*expected an integer/],
      [['serve', '--data', data], { LARDER_MAX_UPLOAD_SIZE: 'lots' }, /LARDER_MAX_UPLOAD_SIZE.*"lots".*expected a size/],
      [['serve', '--data', data], { LARDER_READ_AUTH: 'maybe' }, /LARDER_READ_AUTH.*"maybe".*expected true or false/],
      [['serve', '--data', data, '--upstream', 'ftp://example.test/'], {}, /--upstream.*ftp:\/\/example\.test\/.*expected an http:\/\/ or https:\/\/ URL/],
      [['serve', '--data', data], { LARDER_CONFIG: join(tmp, 'missing.json') }, /config file .*missing\.json not found \(LARDER_CONFIG\)/],
    ];
    const results = await Promise.all(cases.map(([args, env]) => larder(args, { env })));
    results.forEach((r, i) => {
      const line = assertOneLineError(r, cases[i]![2]);
      assert.doesNotMatch(line, /\bat \S+:\d+/, 'no stack trace');
    });
  });

  test('serve --port 0 logs its URL, answers /health and exits 0 on SIGTERM', async (t) => {
    const serveData = join(tmp, 'serve-data');
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', '--port', '0', '--data', serveData, '--upstream', 'none'], {
      cwd: REPO,
      env: cliEnv({ LARDER_UPSTREAM: 'none' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });

    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: string) => {
        stdout += d;
        const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      void exited.then(([code]) => reject(new Error(`serve exited (${code}) before listening:\n${stdout}\n${stderr}`)));
    });
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(url, 'http://127.0.0.1:0');
    // Logs are JSON lines (pino); the listening line is one of them.
    const logLine = lines(stdout).find((l) => l.includes('listening on'))!;
    const entry = JSON.parse(logLine) as { level: number; msg: string };
    assert.equal(typeof entry.level, 'number');
    assert.match(entry.msg, /^larder listening on http:\/\/127\.0\.0\.1:\d+/);

    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200);
    await health.arrayBuffer();
    const simple = await fetch(`${url}/simple/`);
    assert.equal(simple.status, 200);
    await simple.arrayBuffer();

    child.kill('SIGTERM');
    const [code, signal] = await exited;
    assert.equal(signal, null, stderr);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /SIGTERM received/);
    assert.equal(stderr, '');
  });

  describe('project commands on a data directory a running server shares', { concurrency: false }, () => {
    let server: TestLarder;
    let dists: Awaited<ReturnType<typeof buildWheel>>[];
    const alice = basicAuth('alice', 'alice-password-1');

    const upload = async (dist: (typeof dists)[number], auth: string) =>
      fetch(`${server.url}/legacy/`, { method: 'POST', body: await uploadForm(dist), headers: { Authorization: auth } });
    const releaseJson = async (version: string) => {
      const res = await fetch(`${server.url}/pypi/cli-proj/${version}/json`);
      return { status: res.status, doc: res.status === 200 ? ((await res.json()) as { info: { yanked: boolean; yanked_reason: string | null } }) : null };
    };
    const filenames = async () => {
      const res = await fetch(`${server.url}/simple/cli-proj/`, { headers: { Accept: 'application/vnd.pypi.simple.v1+json' } });
      if (res.status !== 200) return res.status;
      return ((await res.json()) as { files: { filename: string }[] }).files.map((f) => f.filename).sort();
    };

    before(async () => {
      const projectData = join(tmp, 'project-data');
      // Users are created with the CLI before the server starts; the server reads them from LMDB.
      for (const name of ['alice', 'bob']) {
        assertOk(await larder(['user', 'add', name, '--password-stdin', '--data', projectData], { input: `${name}-password-1\n` }));
      }
      server = await startLarder({}, projectData);
      dists = await Promise.all(['1.0', '2.0', '3.0'].map((version) => buildWheel(join(tmp, 'dists'), { name: 'CLI.Proj', version })));
      for (const dist of dists.slice(0, 2)) {
        const res = await upload(dist, alice);
        assert.equal(res.status, 200, res.statusText);
      }
    });
    after(async () => {
      await server?.close();
    });

    test('yank and unyank show on the running server', async () => {
      const run = await larder(['project', 'yank', 'CLI.Proj', '1.0', '--reason', 'old and broken', '--data', server.data]);
      assertOk(run);
      let { doc } = await releaseJson('1.0');
      assert.equal(doc!.info.yanked, true);
      assert.equal(doc!.info.yanked_reason, 'old and broken');
      assert.equal((await releaseJson('2.0')).doc!.info.yanked, false);

      assertOk(await larder(['project', 'unyank', 'cli-proj', '1.0', '--data', server.data]));
      ({ doc } = await releaseJson('1.0'));
      assert.equal(doc!.info.yanked, false);
      assert.equal(doc!.info.yanked_reason, null);

      assertOneLineError(await larder(['project', 'yank', 'cli-proj', '9.9', '--data', server.data]), /9\.9/);
      assertOneLineError(await larder(['project', 'yank', 'cli-proj', '--data', server.data]), /wrong number of arguments/);
    });

    test('add-maintainer lets another user upload', async () => {
      const bob = basicAuth('bob', 'bob-password-1');
      let res = await upload(dists[2]!, bob);
      assert.equal(res.status, 403, res.statusText);
      assertOneLineError(await larder(['project', 'add-maintainer', 'cli-proj', 'nobody', '--data', server.data]), /nobody/);
      assertOk(await larder(['project', 'add-maintainer', 'cli-proj', 'bob', '--data', server.data]));
      res = await upload(dists[2]!, bob);
      assert.equal(res.status, 200, res.statusText);
      assert.deepEqual(await filenames(), dists.map((d) => d.filename).sort());
    });

    test('allow-name records a normalized name; invalid names are refused', async () => {
      const run = await larder(['project', 'allow-name', 'Some_Upstream.Name', '--data', server.data]);
      assertOk(run);
      assert.match(run.stdout, /some-upstream-name/);
      assert.equal(await server.larder.meta.isNameAllowed('some-upstream-name'), true);
      assertOneLineError(await larder(['project', 'allow-name', 'not valid!', '--data', server.data]), /not a valid project name/);
    });

    test('remove a file, a release and the project; removed filenames stay reserved', async () => {
      const [d1, d2, d3] = dists as [(typeof dists)[number], (typeof dists)[number], (typeof dists)[number]];
      assertOk(await larder(['project', 'remove', 'cli-proj', '3.0', d3.filename, '--data', server.data]));
      assert.deepEqual(await filenames(), [d1.filename, d2.filename].sort());
      assertOk(await larder(['project', 'remove', 'cli-proj', '2.0', '--data', server.data]));
      assert.deepEqual(await filenames(), [d1.filename]);
      assert.equal((await releaseJson('2.0')).status, 404);

      const again = await upload(d2, alice);
      assert.equal(again.status, 400, 'a deleted filename can not be reused');
      assert.match(again.statusText, /previously used/);

      assertOneLineError(await larder(['project', 'remove', 'cli-proj', '2.0', '--data', server.data]), /2\.0/);
      assertOk(await larder(['project', 'remove', 'cli-proj', '--data', server.data]));
      assert.equal(await filenames(), 404);
      assertOneLineError(await larder(['project', 'remove', 'cli-proj', '--data', server.data]), /cli-proj/i);
    });
  });
});
