/**
 * The test fixtures with real pip and twine (slow tier: a venv and real installs): built wheels install,
 * pip reads the fake upstream's JSON pages, HTML-only pages and HTTP/1.0 framing, twine uploads with only
 * the credentials it is given.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findClients, makeVenv, pipInstall, requireClients, twineUpload, type Clients, type Venv } from '../fixtures/clients.js';
import { buildSdist, buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';

const JSON_TYPE = 'application/vnd.pypi.simple.v1+json';

describe('test fixtures with real clients', () => {
  let tmp: string;
  let upstream: FakeUpstream;
  let app: BuiltDist;
  let src: BuiltDist;
  let clients: Clients;
  let venv: Venv | null = null;
  after(async () => {
    await upstream?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'larder-fixtures-clients-'));
    const dists = join(tmp, 'dists');
    const lib1 = await buildWheel(dists, { name: 'FX_Lib', version: '1.0', requiresPython: '>=3.8,<4' });
    const lib2 = await buildWheel(dists, { name: 'FX_Lib', version: '2.0', summary: 'second' });
    const libSdist = await buildSdist(dists, { name: 'FX_Lib', version: '1.0' });
    app = await buildWheel(dists, { name: 'fx-app', version: '0.1', requiresDist: ['fx-lib>=1'] });
    src = await buildSdist(dists, { name: 'fx.src', version: '3.0' });
    upstream = await startFakeUpstream();
    upstream.addProject('FX_Lib', [lib1, libSdist, lib2], { yanked: { [lib2.filename]: 'broken <build>' } });
    upstream.addProject('fx-app', [app]);
    upstream.addProject('fx.src', [src]);
    clients = await findClients();
    if (clients.python) venv = await makeVenv(join(tmp, 'venv'), clients.python);
  });

  test('pip installs a built wheel from --find-links and imports it', async (t) => {
    if (!(await requireClients(t, ['python'], clients))) return;
    const config = await venv!.pip(['config', 'list']);
    assert.equal(config.stdout.trim(), '', 'pip must see no configuration from this machine');
    const r = await venv!.pip(['install', '--no-cache-dir', '--no-index', '--find-links', join(tmp, 'dists'), 'fx-lib==1.0']);
    assert.equal(r.code, 0, r.stderr);
    const run = await venv!.run(['-c', 'import fx_lib; print(fx_lib.VALUE)']);
    assert.equal(run.stdout.trim(), 'FX_Lib 1.0');
  });

  test('pip installs from the fake upstream: JSON pages, a dependency, an sdist, yanked skipped', async (t) => {
    if (!(await requireClients(t, ['python'], clients))) return;
    upstream.clearLog();
    const r = await pipInstall(venv!, upstream.url, ['--upgrade', 'fx-app', 'fx.src']);
    assert.equal(r.code, 0, r.stderr);
    const run = await venv!.run(['-c', 'import fx_app, fx_lib, fx_src; print(fx_app.VALUE, fx_lib.VALUE, fx_src.VALUE)']);
    assert.equal(run.stdout.trim(), 'fx-app 0.1 FX_Lib 1.0 fx.src 3.0');
    const pages = upstream.requestsTo('/simple/');
    assert.ok(pages.length > 0 && pages.every((p) => p.headers.accept?.includes(JSON_TYPE)));
    assert.ok(upstream.requestsTo('/files/').some((p) => p.path.endsWith(src.filename)));
  });

  test('pip installs through an HTML-only upstream with relative links', async (t) => {
    if (!(await requireClients(t, ['python'], clients))) return;
    const dist = await buildWheel(join(tmp, 'html'), { name: 'fx-html', version: '1.0' });
    upstream.addProject('fx-html', [dist]);
    upstream.configure({ htmlOnly: true, relativeUrls: true });
    try {
      const r = await pipInstall(venv!, upstream.url, ['fx-html']);
      assert.equal(r.code, 0, r.stderr);
      const run = await venv!.run(['-c', 'import fx_html; print(fx_html.VALUE)']);
      assert.equal(run.stdout.trim(), 'fx-html 1.0');
    } finally {
      upstream.configure({ htmlOnly: false, relativeUrls: false });
    }
  });

  test('pip installs from an HTTP/1.0, close-delimited upstream', async (t) => {
    if (!(await requireClients(t, ['python'], clients))) return;
    upstream.configure({ framing: 'http10' });
    upstream.clearLog();
    try {
      const r = await pipInstall(venv!, upstream.url, ['--force-reinstall', 'fx-app']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(upstream.requests.length >= 3 && upstream.requests.every((e) => e.framing === 'http10' && e.completed));
    } finally {
      upstream.configure({ framing: 'node' });
    }
  });

  test('twine uploads with the given credentials and no inherited configuration', async (t) => {
    if (!(await requireClients(t, ['twine'], clients))) return;
    const received: { auth?: string; body: Buffer }[] = [];
    const sink = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ auth: req.headers.authorization, body: Buffer.concat(chunks) });
        res.end('OK');
      });
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/legacy/`;
      const r = await twineUpload(url, [app.path], { username: 'alice', password: 's3cret' });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      assert.equal(received.length, 1);
      assert.equal(received[0]!.auth, `Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
      const body = received[0]!.body.toString('latin1');
      assert.ok(body.includes('file_upload'));
      assert.ok(body.includes(`filename="${app.filename}"`));
      assert.ok(body.includes(app.sha256));
    } finally {
      await new Promise<void>((resolve) => sink.close(() => resolve()));
    }
  });
});
