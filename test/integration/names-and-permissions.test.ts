/**
 * What a client may send and who may do what: project names are checked (PEP 508, at most 200 characters)
 * before the store or the upstream is touched, on every route and in the CLI; over-long versions and file
 * names are refused before they reach an LMDB key; only owners and administrators yank, unyank and remove,
 * maintainers only upload.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { type CliResult, runLarderCli } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const NAME_RULE =
  /is not a valid project name: names are 1 to 200 letters, digits, '\.', '-' or '_', starting and ending with a letter or digit \(PEP 508\)\.$/;
const LONG_NAME = 'a'.repeat(500);
const INVALID_NAMES = ['-leading', 'trailing_', 'sp ace', 'semi;colon', 'ünï', 'a'.repeat(201), LONG_NAME];
const LONG_VERSION = `1.${'0.'.repeat(150)}0`;
const LONG_FILENAME = `acme_perm-1.0-${'x'.repeat(260)}-none-any.whl`;
const LONG_FILENAME_BYTES = Buffer.byteLength(LONG_FILENAME);

const enc = encodeURIComponent;

async function expectText400(res: Response, pattern: RegExp, what: string): Promise<void> {
  const body = await res.text();
  assert.equal(res.status, 400, `${what}: ${res.status} ${body}`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/, what);
  assert.equal(body.trimEnd().split('\n').length, 1, `${what}: one line`);
  assert.match(body.trimEnd(), pattern, what);
}

async function expectJson400(res: Response, pattern: RegExp, what: string): Promise<void> {
  const body = await res.text();
  assert.equal(res.status, 400, `${what}: ${res.status} ${body}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, what);
  const doc = JSON.parse(body) as { message: string };
  assert.match(doc.message, pattern, what);
}

describe('project names, versions and file names from clients', () => {
  const dir = suiteTempDir('larder-names-');
  let up: FakeUpstream;
  let server: TestLarder;
  let upWheel: BuiltDist;
  const alice = basicAuth('alice', 'alice-password');
  const admin = basicAuth('root', 'root-password');

  before(async () => {
    upWheel = await buildWheel(join(dir, 'up'), { name: 'up-thing', version: '1.0' });
    up = await startFakeUpstream();
    up.addProject('up-thing', [upWheel]);
    server = await startLarder({ upstream: up.url, upstreamRetries: 0 });
    await server.addUser('alice', 'alice-password');
    await server.addUser('root', 'root-password', true);
  });
  after(async () => {
    await server?.close();
    await up?.close();
  });

  test('invalid and over-long names get a 400 on every read route, and never reach the upstream', async () => {
    up.clearLog();
    for (const name of INVALID_NAMES) {
      const p = enc(name);
      for (const path of [`/simple/${p}/`, `/simple/${p}`, `/packages/${p}/x-1.0-py3-none-any.whl`, `/packages/${p}/x-1.0-py3-none-any.whl.metadata`]) {
        await expectText400(await fetch(`${server.url}${path}`, { redirect: 'manual' }), NAME_RULE, path);
      }
      for (const prefix of ['pypi', 'index']) {
        for (const path of [`/${prefix}/${p}/json`, `/${prefix}/${p}/json/`, `/${prefix}/${p}/1.0/json`]) {
          await expectJson400(await fetch(`${server.url}${path}`, { redirect: 'manual' }), NAME_RULE, path);
        }
      }
    }
    const res = await fetch(`${server.url}/simple/${LONG_NAME}/`);
    assert.match(await res.text(), /^'a{30}\.\.\.a{30}' \(500 characters\) is not a valid project name/);
    assert.deepEqual(
      up.requests.map((r) => r.url),
      [],
      'nothing reached the upstream',
    );
  });

  test('a name of 200 characters is valid: it is looked up upstream', async () => {
    const name = 'b'.repeat(200);
    up.clearLog();
    assert.equal((await fetch(`${server.url}/simple/${name}/`)).status, 404);
    assert.equal((await fetch(`${server.url}/pypi/${name}/json`)).status, 404);
    assert.ok(up.requestsTo(`/simple/${name}/`).length >= 1, 'asked the upstream');
  });

  test('valid but non-normalized names still redirect with 301', async () => {
    for (const [path, location] of [
      ['/simple/Up_Thing/', /\/simple\/up-thing\/$/],
      ['/simple/up-thing', /\/simple\/up-thing\/$/],
      ['/pypi/Up.Thing/json', /\/pypi\/up-thing\/json$/],
      ['/index/UP-thing/1.0/json', /\/index\/up-thing\/1\.0\/json$/],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      assert.equal(res.status, 301, path);
      assert.match(res.headers.get('location')!, location, path);
    }
  });

  test('over-long versions and file names get a 400 before any lookup', async () => {
    up.clearLog();
    for (const prefix of ['pypi', 'index']) {
      await expectJson400(
        await fetch(`${server.url}/${prefix}/up-thing/${LONG_VERSION}/json`),
        /^The version '1\.0\.0.*' is too long \(303 bytes\): versions are at most 255 bytes\.$/,
        `${prefix} version`,
      );
    }
    for (const suffix of ['', '.metadata', '.asc']) {
      await expectText400(
        await fetch(`${server.url}/packages/up-thing/${LONG_FILENAME}${suffix}`),
        new RegExp(
          `^The file name 'acme_perm-1\\.0-x+\\.\\.\\.x+-none-any\\.whl' is too long \\(${LONG_FILENAME_BYTES} bytes\\): file names are at most 255 bytes\\.$`,
        ),
        `file${suffix}`,
      );
    }
    assert.deepEqual(
      up.requests.map((r) => r.url),
      [],
    );
    // Just within the bounds: an ordinary 404.
    assert.equal((await fetch(`${server.url}/pypi/up-thing/${'1.'.repeat(127)}0/json`)).status, 404);
  });

  test('the admin API checks names, versions and file names first', async () => {
    const post = (path: string, body?: unknown, auth = alice) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { Authorization: auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
    const del = (path: string) => fetch(`${server.url}${path}`, { method: 'DELETE', headers: { Authorization: alice } });
    for (const name of INVALID_NAMES) {
      const p = enc(name);
      await expectText400(await post(`/api/projects/${p}/releases/1.0/yank`), NAME_RULE, `yank ${name}`);
      await expectText400(await post(`/api/projects/${p}/releases/1.0/unyank`), NAME_RULE, `unyank ${name}`);
      await expectText400(await del(`/api/projects/${p}`), NAME_RULE, `delete ${name}`);
      await expectText400(await del(`/api/projects/${p}/releases/1.0/files/x.whl`), NAME_RULE, `delete file of ${name}`);
      await expectText400(await post(`/api/projects/${p}/maintainers`, { user: 'alice' }), NAME_RULE, `maintainer ${name}`);
      await expectText400(await post('/api/allowed-names', { name }, admin), NAME_RULE, `allow ${name}`);
    }
    // Without credentials the malformed request is still a 400: nothing is looked up.
    await expectText400(await fetch(`${server.url}/api/projects/${LONG_NAME}`, { method: 'DELETE' }), NAME_RULE, 'anonymous');
    await expectText400(await post(`/api/projects/acme-x/releases/${LONG_VERSION}/yank`), /versions are at most 255 bytes/, 'version');
    await expectText400(await del(`/api/projects/acme-x/releases/${LONG_VERSION}`), /versions are at most 255 bytes/, 'delete version');
    await expectText400(await del(`/api/projects/acme-x/releases/1.0/files/${LONG_FILENAME}`), /file names are at most 255 bytes/, 'delete file');
    // A stray '%' in a segment is an ordinary unknown name, not a server error.
    assert.equal((await del('/api/projects/acme-x/releases/1%25/files/a%25.whl')).status, 404);
  });

  test('uploads: a name over 200 characters or a file name over 255 bytes is refused before the upstream is asked', async () => {
    up.clearLog();
    const wheel = await buildWheel(join(dir, 'up2'), { name: 'acme-upl', version: '1.0' });
    let res = await fetch(`${server.url}/legacy/`, {
      method: 'POST',
      body: await uploadForm(wheel, { name: 'c'.repeat(201) }),
      headers: { Authorization: alice },
    });
    assert.equal(res.status, 400);
    assert.match(res.statusText, /^'c{30}\.\.\.c{30}' is an invalid value for Name\. Error: Use at most 200 characters\./);

    const form = await uploadForm(wheel, {}, ['content']);
    form.append('content', new Blob([await readFile(wheel.path)], { type: 'application/octet-stream' }), LONG_FILENAME);
    res = await fetch(`${server.url}/legacy/`, { method: 'POST', body: form, headers: { Authorization: alice } });
    assert.equal(res.status, 400);
    assert.match(res.statusText, new RegExp(`^The file name '.*' is too long \\(${LONG_FILENAME_BYTES} bytes\\): file names are at most 255 bytes\\.$`));
    assert.deepEqual(
      up.requests.map((r) => r.url),
      [],
    );
  });

  test('CLI commands that take a project name check it', async () => {
    const data = join(dir, 'cli-data');
    const runs: [string[], RegExp][] = [
      [['project', 'yank', LONG_NAME, '1.0'], NAME_RULE],
      [['project', 'unyank', 'bad-', '1.0'], NAME_RULE],
      [['project', 'remove', 'sp ace'], NAME_RULE],
      [['project', 'remove', 'acme', LONG_VERSION], /versions are at most 255 bytes/],
      [['project', 'remove', 'acme', '1.0', LONG_FILENAME], /file names are at most 255 bytes/],
      [['project', 'add-maintainer', 'bad!', 'bob'], NAME_RULE],
      [['project', 'allow-name', LONG_NAME], NAME_RULE],
      [['token', 'create', 'nobody', '--project', 'ok-name', '--project=-bad'], NAME_RULE],
      [['cache', 'purge', 'fine', 'not fine'], NAME_RULE],
      [['export', join(dir, 'x.tar'), '--project', LONG_NAME], NAME_RULE],
    ];
    // In this process (the command line's own code, as src/main.ts runs it): a process each would add seconds of start-up.
    const results: CliResult[] = [];
    for (const [args] of runs) results.push(await runLarderCli([...args, '--data', data]));
    results.forEach((r, i) => {
      const [args, pattern] = runs[i]!;
      const what = args.slice(0, 2).join(' ');
      assert.equal(r.code, 1, `${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
      const errors = r.stderr.split('\n').filter((l) => l.trim() !== '');
      assert.equal(errors.length, 1, `${what}: one line\n${r.stderr}`);
      assert.match(errors[0]!, /^larder: /, what);
      assert.match(errors[0]!, pattern, what);
    });
  });
});

describe('who may yank, unyank and remove', () => {
  const dir = suiteTempDir('larder-perms-');
  let server: TestLarder;
  const owner = basicAuth('alice', 'alice-password');
  const maintainer = basicAuth('bob', 'bob-password');
  const administrator = basicAuth('carol', 'carol-password');
  const stranger = basicAuth('dave', 'dave-password');
  const wheels: BuiltDist[] = [];

  const upload = async (dist: BuiltDist, auth: string) =>
    fetch(`${server.url}/legacy/`, { method: 'POST', body: await uploadForm(dist), headers: { Authorization: auth } });
  const call = (method: string, path: string, auth: string, body: unknown = {}) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: method === 'POST' ? JSON.stringify(body) : undefined,
    });
  const releaseDoc = async (version: string) => {
    const res = await fetch(`${server.url}/pypi/acme-perm/${version}/json`);
    return { status: res.status, doc: res.status === 200 ? ((await res.json()) as { info: { yanked: boolean } }) : null };
  };

  before(async () => {
    server = await startLarder();
    await server.addUser('alice', 'alice-password');
    await server.addUser('bob', 'bob-password');
    await server.addUser('carol', 'carol-password', true);
    await server.addUser('dave', 'dave-password');
    for (const version of ['1.0', '2.0', '3.0', '4.0']) wheels.push(await buildWheel(dir, { name: 'Acme.Perm', version }));
    for (const w of wheels.slice(0, 2)) {
      const res = await upload(w, owner);
      assert.equal(res.status, 200, res.statusText);
    }
    const added = await fetch(`${server.url}/api/projects/acme-perm/maintainers`, {
      method: 'POST',
      headers: { Authorization: owner, 'Content-Type': 'application/json' },
      body: JSON.stringify({ user: 'bob' }),
    });
    assert.equal(added.status, 200, await added.text());
  });
  after(async () => {
    await server?.close();
  });

  test('a maintainer may upload, but gets a 403 for yank, unyank and every removal', async () => {
    const res = await upload(wheels[2]!, maintainer);
    assert.equal(res.status, 200, res.statusText);
    const serial = await server.larder.meta.lastSerial();
    const refused: [string, string, unknown?][] = [
      ['POST', '/api/projects/acme-perm/releases/1.0/yank'],
      ['POST', '/api/projects/acme-perm/releases/1.0/unyank'],
      ['DELETE', `/api/projects/acme-perm/releases/1.0/files/${wheels[0]!.filename}`],
      ['DELETE', '/api/projects/acme-perm/releases/1.0'],
      ['DELETE', '/api/projects/acme-perm'],
      ['POST', '/api/projects/acme-perm/maintainers', { user: 'dave' }],
    ];
    for (const [method, path, payload] of refused) {
      const r = await call(method, path, maintainer, payload);
      const body = await r.text();
      assert.equal(r.status, 403, `${method} ${path}: ${r.status} ${body}`);
      assert.match(
        body.trimEnd(),
        /^The user 'bob' maintains project 'Acme\.Perm' and may upload to it; only its owners \(and administrators\) may (yank releases|unyank releases|remove (files|releases|the project)|add maintainers)\.$/,
        `${method} ${path}`,
      );
      assert.equal(r.statusText, body.trimEnd());
    }
    assert.equal(await server.larder.meta.lastSerial(), serial, 'nothing changed');
    assert.equal((await releaseDoc('1.0')).doc!.info.yanked, false);
    assert.equal((await fetch(`${server.url}/packages/acme-perm/${wheels[0]!.filename}`)).status, 200);
  });

  test('someone with no role gets the general 403', async () => {
    const r = await call('POST', '/api/projects/acme-perm/releases/1.0/yank', stranger);
    assert.equal(r.status, 403);
    assert.match(await r.text(), /^The user 'dave' isn't allowed to manage project 'Acme\.Perm'\.$/m);
  });

  test("a token limited to another project may not manage this one, even its owner's", async () => {
    const token = await server.addToken('alice', ['other-project']);
    const r = await call('POST', '/api/projects/acme-perm/releases/1.0/yank', basicAuth('__token__', token));
    assert.equal(r.status, 403);
    assert.match(await r.text(), /^The given token isn't allowed to manage project 'Acme\.Perm'\.$/m);
  });

  test('owners and administrators may yank, unyank and remove', async () => {
    assert.equal((await call('POST', '/api/projects/acme-perm/releases/1.0/yank', owner)).status, 200);
    assert.equal((await releaseDoc('1.0')).doc!.info.yanked, true);
    assert.equal((await call('POST', '/api/projects/acme-perm/releases/1.0/unyank', administrator)).status, 200);
    assert.equal((await releaseDoc('1.0')).doc!.info.yanked, false);
    assert.equal((await call('DELETE', `/api/projects/acme-perm/releases/2.0/files/${wheels[1]!.filename}`, administrator)).status, 200);
    assert.equal((await call('DELETE', '/api/projects/acme-perm/releases/3.0', owner)).status, 200);
    assert.equal((await releaseDoc('3.0')).status, 404);
    // The maintainer still uploads.
    assert.equal((await upload(wheels[3]!, maintainer)).status, 200);
    assert.equal((await call('DELETE', '/api/projects/acme-perm', owner)).status, 200);
    assert.equal((await fetch(`${server.url}/simple/acme-perm/`)).status, 404);
  });
});
