/**
 * PEP 792 project status of private projects on a running larder: set by the real CLI (seen by the running
 * server) and over /api by owners and administrators; what each status does to uploads, simple pages (JSON
 * and HTML), files, the JSON API and the web page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as cheerio from 'cheerio';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { assertCliOk, runLarderCli } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { uploadForm } from '../helpers/upload-form.js';

const SIMPLE_JSON = 'application/vnd.pypi.simple.v1+json';

interface SimpleDoc {
  files: { filename: string }[];
  versions: string[];
  'project-status': { status: string; reason?: string };
}

describe('PEP 792 project status of private projects', () => {
  const dir = suiteTempDir('larder-status-');
  let server: TestLarder;
  const alice = basicAuth('alice', 'alice-password');
  const bob = basicAuth('bob', 'bob-password');
  const carol = basicAuth('carol', 'carol-password');
  const root = basicAuth('root', 'root-password');
  let v1: BuiltDist;
  let v2: BuiltDist;
  let v3: BuiltDist;

  const upload = async (dist: BuiltDist, auth = alice) =>
    fetch(`${server.url}/legacy/`, { method: 'POST', body: await uploadForm(dist), headers: { Authorization: auth } });
  const simpleJson = async (): Promise<SimpleDoc> => {
    const res = await fetch(`${server.url}/simple/acme-status/`, { headers: { Accept: SIMPLE_JSON } });
    assert.equal(res.status, 200);
    return (await res.json()) as SimpleDoc;
  };
  const simpleHtml = async () => {
    const res = await fetch(`${server.url}/simple/acme-status/`, { headers: { Accept: 'text/html' } });
    assert.equal(res.status, 200);
    return cheerio.load(await res.text());
  };
  const setStatus = (body: unknown, auth: string | null = alice, project = 'acme-status') =>
    fetch(`${server.url}/api/projects/${project}/status`, {
      method: 'POST',
      headers: { ...(auth ? { Authorization: auth } : {}), 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const cli = (...args: string[]) => runLarderCli(['project', 'status', ...args], { env: { LARDER_DATA: server.data } });

  before(async () => {
    server = await startLarder();
    await server.addUser('alice', 'alice-password');
    await server.addUser('bob', 'bob-password');
    await server.addUser('carol', 'carol-password');
    await server.addUser('root', 'root-password', true);
    v1 = await buildWheel(dir, { name: 'Acme.Status', version: '1.0' });
    v2 = await buildWheel(dir, { name: 'Acme.Status', version: '2.0' });
    v3 = await buildWheel(dir, { name: 'Acme.Status', version: '3.0' });
    const res = await upload(v1);
    assert.equal(res.status, 200, await res.text());
    assert.ok(await server.larder.meta.addMaintainer('acme-status', 'bob', null));
  });
  after(() => server.close());

  test('archived by the CLI: the running server shows it within 5 s, refuses uploads naming it, still serves files', async () => {
    assertCliOk(await cli('Acme.Status', 'archived', '--reason', 'moved to acme-next'));
    await eventually(async () => (await simpleJson())['project-status'].status === 'archived', 'the running server sees the archived status');
    const doc = await simpleJson();
    assert.deepEqual(doc['project-status'], { status: 'archived', reason: 'moved to acme-next' });
    assert.deepEqual(
      doc.files.map((f) => f.filename),
      [v1.filename],
    );
    const $ = await simpleHtml();
    assert.equal($('meta[name="pypi:project-status"]').attr('content'), 'archived');
    assert.equal($('meta[name="pypi:project-status-reason"]').attr('content'), 'moved to acme-next');
    assert.equal($('a').length, 1);

    const refused = await upload(v2);
    assert.equal(refused.status, 400);
    assert.match(refused.statusText, /^Project 'Acme\.Status' is archived \(moved to acme-next\) and takes no new uploads/);
    assert.match(await refused.text(), /is archived/);
    assert.equal(await server.larder.meta.getFile('acme-status', v2.filename), undefined);

    const file = await fetch(`${server.url}/packages/acme-status/${v1.filename}`);
    assert.equal(file.status, 200);
    assert.equal((await file.arrayBuffer()).byteLength, v1.size);
    const api = await fetch(`${server.url}/pypi/acme-status/json`);
    assert.equal(api.status, 200);
    assert.deepEqual(Object.keys(((await api.json()) as { releases: object }).releases), ['1.0']);
  });

  test('quarantined: pages answer 200 with no files, files and the JSON API are refused naming the status, no uploads', async () => {
    assertCliOk(await cli('acme-status', 'quarantined', '--reason', 'under review'));
    await eventually(async () => (await simpleJson())['project-status'].status === 'quarantined', 'the running server sees the quarantine');
    const doc = await simpleJson();
    assert.deepEqual([doc.files, doc.versions, doc['project-status']], [[], [], { status: 'quarantined', reason: 'under review' }]);
    const $ = await simpleHtml();
    assert.equal($('a').length, 0);
    assert.equal($('meta[name="pypi:project-status"]').attr('content'), 'quarantined');

    for (const suffix of ['', '.metadata']) {
      const file = await fetch(`${server.url}/packages/acme-status/${v1.filename}${suffix}`);
      assert.equal(file.status, 403, suffix);
      assert.match(await file.text(), /^Project Acme\.Status is quarantined \(under review\): its files are not served\./);
    }
    const api = await fetch(`${server.url}/pypi/acme-status/json`);
    assert.equal(api.status, 404);
    assert.deepEqual(await api.json(), { message: 'Project Acme.Status is quarantined: it is not listed.' });
    assert.equal((await fetch(`${server.url}/pypi/acme-status/1.0/json`)).status, 404);

    const refused = await upload(v2);
    assert.equal(refused.status, 403);
    assert.match(refused.statusText, /is quarantined \(under review\) and takes no new uploads/);
  });

  test('deprecated keeps its files and takes uploads; active takes uploads again and drops the status', async () => {
    assertCliOk(await cli('acme-status', 'deprecated'));
    await eventually(async () => (await simpleJson())['project-status'].status === 'deprecated', 'the running server sees deprecated');
    assert.deepEqual((await simpleJson())['project-status'], { status: 'deprecated' });
    assert.equal((await fetch(`${server.url}/packages/acme-status/${v1.filename}`)).status, 200);
    const accepted = await upload(v2);
    assert.equal(accepted.status, 200, await accepted.text());

    const active = await cli('acme-status', 'active');
    assertCliOk(active);
    assert.equal(active.stdout, 'Acme.Status is now active\n');
    await eventually(async () => (await simpleJson())['project-status'].status === 'active', 'the running server sees active');
    assert.deepEqual((await simpleJson())['project-status'], { status: 'active' });
    assert.equal((await simpleHtml())('meta[name="pypi:project-status-reason"]').length, 0);
    assert.equal((await upload(v3)).status, 200);
    assert.deepEqual((await simpleJson()).files.map((f) => f.filename).sort(), [v1.filename, v2.filename, v3.filename].sort());
  });

  test('the CLI refuses an unknown status, an unknown project and a reason of two lines', async () => {
    const unknown = await cli('acme-status', 'frozen');
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /Unknown project status 'frozen': use one of active, archived, quarantined, deprecated/);
    const missing = await cli('no-such-project', 'archived');
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /No private project named no-such-project/);
    const twoLines = await cli('acme-status', 'archived', '--reason', 'one\ntwo');
    assert.notEqual(twoLines.code, 0);
    assert.match(twoLines.stderr, /one line of at most 500 characters/);
    assert.equal((await server.larder.meta.getProject('acme-status'))!.status, undefined);
  });

  test('over /api: owners and administrators set it; maintainers, others and anonymous requests are refused', async () => {
    const owner = await setStatus({ status: 'archived', reason: 'read-only now' });
    assert.equal(owner.status, 200, await owner.clone().text());
    assert.deepEqual(await owner.json(), {
      status: 'archived',
      reason: 'read-only now',
      serial: (await server.larder.meta.getProject('acme-status'))!.serial,
    });
    assert.deepEqual((await simpleJson())['project-status'], { status: 'archived', reason: 'read-only now' });

    const maintainer = await setStatus({ status: 'active' }, bob);
    assert.equal(maintainer.status, 403);
    assert.match(await maintainer.text(), /only its owners \(and administrators\) may set the project status/);
    const other = await setStatus({ status: 'active' }, carol);
    assert.equal(other.status, 403);
    assert.match(await other.text(), /The user 'carol' isn't allowed to manage project 'Acme\.Status'/);
    assert.equal((await setStatus({ status: 'active' }, null)).status, 401);
    assert.equal((await simpleJson())['project-status'].status, 'archived', 'nothing changed');

    const bad = await setStatus({ status: 'frozen' });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /Unknown project status 'frozen'/);
    assert.equal((await setStatus({ reason: 'x' })).status, 400);
    assert.equal((await setStatus({ status: 'archived', reason: 'x'.repeat(501) })).status, 400);
    assert.equal((await setStatus({ status: 'archived' }, root, 'no-such-project')).status, 404);

    const admin = await setStatus({ status: 'active' }, root);
    assert.equal(admin.status, 200);
    assert.deepEqual((await simpleJson())['project-status'], { status: 'active' });
    const log = await server.larder.meta.changesSince(0);
    assert.deepEqual(
      log.filter((e) => e.action === 'set project status').map((e) => e.user),
      [null, null, null, null, 'alice', 'root'],
      'CLI changes are logged without a user, API changes under the caller',
    );
  });

  test('the web project page shows the status and its reason', async () => {
    assert.equal((await setStatus({ status: 'deprecated', reason: 'use acme-next' })).status, 200);
    const $ = cheerio.load(await (await fetch(`${server.url}/project/acme-status/`)).text());
    const notice = $('[data-project-status]');
    assert.equal(notice.attr('data-project-status'), 'deprecated');
    assert.match(notice.text(), /Deprecated\. This project is deprecated: it is no longer recommended; its files stay installable\. use acme-next/);
    assert.equal($('.badge.status').text(), 'deprecated');

    assert.equal((await setStatus({ status: 'quarantined' })).status, 200);
    const quarantined = cheerio.load(await (await fetch(`${server.url}/project/acme-status/`)).text());
    assert.equal(quarantined('[data-project-status]').attr('data-project-status'), 'quarantined');
    assert.equal(quarantined('table.files').length, 0, 'no files listed');
    assert.match(quarantined('main').text(), /This release has no files\./);

    assert.equal((await setStatus({ status: 'active' })).status, 200);
    assert.equal(cheerio.load(await (await fetch(`${server.url}/project/acme-status/`)).text())('[data-project-status]').length, 0);
  });
});

describe('PEP 792 status of a private project merged with the upstream project of its name', () => {
  const dir = suiteTempDir('larder-status-merged-');
  let up: FakeUpstream;
  let server: TestLarder;
  const alice = basicAuth('alice', 'alice-password');
  let upstreamWheel: BuiltDist;

  const page = async () => {
    const res = await fetch(`${server.url}/simple/shared-lib/`, { headers: { Accept: SIMPLE_JSON } });
    assert.equal(res.status, 200);
    return (await res.json()) as SimpleDoc;
  };
  const setStatus = async (status: string) => {
    const res = await fetch(`${server.url}/api/projects/shared-lib/status`, {
      method: 'POST',
      headers: { Authorization: alice, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status }),
    });
    assert.equal(res.status, 200, await res.text());
  };

  before(async () => {
    upstreamWheel = await buildWheel(dir, { name: 'shared-lib', version: '1.0' });
    const privateWheel = await buildWheel(dir, { name: 'shared-lib', version: '1.5' });
    up = await startFakeUpstream();
    up.addProject('shared-lib', [upstreamWheel], { status: 'deprecated' });
    server = await startLarder({ upstream: up.url, upstreamRetries: 0, mergeAllowList: ['shared-lib'] });
    await server.addUser('alice', 'alice-password');
    const res = await fetch(`${server.url}/legacy/`, { method: 'POST', body: await uploadForm(privateWheel), headers: { Authorization: alice } });
    assert.equal(res.status, 200, await res.text());
  });
  after(async () => {
    await server?.close();
    await up?.close();
  });

  test("the upstream's status shows while the private project is active; the private one wins once set", async () => {
    const merged = await page();
    assert.equal(merged.files.length, 2);
    assert.deepEqual(merged['project-status'], { status: 'deprecated' });

    await setStatus('archived');
    assert.deepEqual((await page())['project-status'], { status: 'archived' });
    assert.equal((await page()).files.length, 2);
  });

  test("a quarantined private project lists and serves none of the upstream's files either", async () => {
    await setStatus('quarantined');
    const doc = await page();
    assert.deepEqual([doc.files, doc['project-status']], [[], { status: 'quarantined' }]);
    const file = await fetch(`${server.url}/packages/shared-lib/${upstreamWheel.filename}`);
    assert.equal(file.status, 403);
    assert.match(await file.text(), /is quarantined/);
    await setStatus('active');
    assert.equal((await page()).files.length, 2);
    assert.equal((await fetch(`${server.url}/packages/shared-lib/${upstreamWheel.filename}`)).status, 200);
  });
});
