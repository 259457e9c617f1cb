/**
 * The overlay of private projects on the cached upstream (docs/uploads.md, "Private names and the
 * upstream"): a private project hides the upstream project of the same normalized name unless
 * allow-listed for merging; a new private project
 * may not take a name that exists upstream (409) until an administrator allows it; `/simple/` is the
 * union; offline mode never reaches the upstream and says so when something is not cached.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import type { Settings } from '../../src/config/schema.js';
import { normalizeName } from '../../src/model/names.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';
import { PIP_ACCEPT, rawGet, type Got } from '../helpers/raw-get.js';

const get = (url: string, headers: Record<string, string> = {}) => rawGet(url, { headers });

interface SimpleDoc {
  name: string;
  files: { filename: string; url: string; hashes: Record<string, string> }[];
  versions: string[];
  meta: { '_last-serial'?: number };
}

const json = <T>(got: Got): T => JSON.parse(got.body.toString('utf8')) as T;

describe('caching proxy: private overlay, dependency confusion, root union, offline', () => {
  let dir: string;
  let up: FakeUpstream;
  const larders: TestLarder[] = [];
  const admin = basicAuth('admin', 'admin-password');
  const alice = basicAuth('alice', 'alice-password');
  const dists: Record<string, BuiltDist> = {};

  const larder = async (overrides: Partial<Settings> = {}, dataDir?: string): Promise<TestLarder> => {
    const l = await startLarder({ upstream: up.url, upstreamRetries: 0, upstreamHeadersTimeout: 2000, ...overrides }, dataDir);
    larders.push(l);
    await l.addUser('admin', 'admin-password', true);
    await l.addUser('alice', 'alice-password', false);
    return l;
  };

  const upload = async (l: TestLarder, dist: BuiltDist, auth = alice) =>
    fetch(`${l.url}/legacy/`, { method: 'POST', body: await uploadForm(dist), headers: { Authorization: auth } });

  const allowName = (l: TestLarder, name: string, auth: string) =>
    fetch(`${l.url}/api/allowed-names`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name }),
    });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-proxy-overlay-'));
    const specs: [string, string, string][] = [
      ['acmePrivate', 'Acme_Internal', '1.0'],
      ['acmeAttack', 'acme-internal', '99.0'],
      ['publicLib', 'public-lib', '1.0'],
      ['publicLibPrivate', 'public-lib', '5.0'],
      ['sharedUp1', 'shared-lib', '1.0'],
      ['sharedUp2', 'shared-lib', '2.0'],
      ['sharedPrivate', 'Shared.Lib', '1.5'],
      ['otherLib', 'other-lib', '3.0'],
      ['newName', 'brand-new-name', '1.0'],
      ['downName', 'name-while-down', '1.0'],
      ['publicDotted', 'Public.Lib', '7.0'],
    ];
    for (const [key, name, version] of specs) dists[key] = await buildWheel(join(dir, key), { name, version });
    up = await startFakeUpstream();
    up.addProject('public-lib', [dists.publicLib!], { serial: 2000 });
    up.addProject('shared-lib', [dists.sharedUp1!, dists.sharedUp2!], { serial: 3000 });
    up.addProject('other-lib', [dists.otherLib!]);
  });

  after(async () => {
    await up.setFault(null);
    for (const l of larders) await l.close();
    await up.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('a private project hides the upstream project of the same normalized name completely', async () => {
    const l = await larder();
    up.clearLog();
    const res = await upload(l, dists.acmePrivate!);
    assert.equal(res.status, 200, await res.text());
    assert.equal(up.requestsTo('/simple/acme-internal/').length, 1, 'the new name was checked against the real upstream');

    // The attack: someone publishes the same name upstream, with a higher version.
    up.addProject('acme-internal', [dists.acmeAttack!], { serial: 999_999 });
    up.clearLog();

    const page = await get(`${l.url}/simple/acme-internal/`, { Accept: PIP_ACCEPT });
    assert.equal(page.status, 200);
    const doc = json<SimpleDoc>(page);
    assert.deepEqual(
      doc.files.map((f) => f.filename),
      [dists.acmePrivate!.filename],
    );
    assert.deepEqual(doc.versions, ['1.0']);
    assert.equal(page.headers['x-larder-cache'], undefined, 'a private page is not a proxied response');
    assert.ok(Number(page.headers['x-pypi-last-serial']) < 999_999, "larder's serial, not the upstream's");
    const html = (await get(`${l.url}/simple/acme-internal/`, { Accept: 'text/html' })).body.toString();
    assert.ok(html.includes(dists.acmePrivate!.filename));
    assert.ok(!html.includes(dists.acmeAttack!.filename));

    const api = await get(`${l.url}/pypi/acme-internal/json`);
    assert.equal(api.status, 200);
    const apiDoc = json<{ info: { version: string }; releases: Record<string, unknown[]> }>(api);
    assert.equal(apiDoc.info.version, '1.0');
    assert.deepEqual(Object.keys(apiDoc.releases), ['1.0']);
    assert.equal((await get(`${l.url}/pypi/acme-internal/99.0/json`)).status, 404);

    // The upstream files of that name are not downloadable through larder.
    for (const suffix of ['', '.metadata']) {
      const file = await get(`${l.url}/packages/acme-internal/${dists.acmeAttack!.filename}${suffix}`);
      assert.equal(file.status, 404, `upstream file${suffix} must not be served`);
    }
    const own = await get(`${l.url}/packages/acme-internal/${dists.acmePrivate!.filename}`);
    assert.equal(own.status, 200);
    assert.equal(sha256Hex(own.body), dists.acmePrivate!.sha256);

    assert.equal(up.requestsTo('/simple/acme-internal/').length, 0, 'the upstream is not consulted for a private name');
    assert.equal(up.requestsTo('/pypi/acme-internal/').length, 0);
    assert.equal(up.requestsTo('/files/').length, 0);
  });

  test('a new private project whose name exists upstream → 409 saying how to allow it; allowed after an admin POST /api/allowed-names', async () => {
    const l = await larder();
    up.clearLog();
    const refused = await upload(l, dists.publicLibPrivate!);
    assert.equal(refused.status, 409);
    const message = await refused.text();
    assert.match(message, /public-lib/);
    assert.match(message, /upstream/i);
    assert.match(message, /allow/i, 'the message says how to allow the name');
    assert.match(refused.statusText, /upstream/i, 'the reason phrase carries the message too');
    assert.ok(up.requestsTo('/simple/public-lib/').length >= 1, 'the real upstream was asked');

    // Any spelling that normalizes to the same name is refused too.
    const dotted = await upload(l, dists.publicDotted!);
    assert.equal(dotted.status, 409);

    // Only an administrator may allow it.
    assert.equal((await allowName(l, 'public-lib', alice)).status, 403);
    assert.equal(
      (await fetch(`${l.url}/api/allowed-names`, { method: 'POST', body: '{"name":"public-lib"}', headers: { 'Content-Type': 'application/json' } })).status,
      401,
    );
    const allowed = await allowName(l, 'Public_Lib', admin);
    assert.equal(allowed.status, 200, await allowed.clone().text());
    assert.deepEqual(await allowed.json(), { allowed: 'public-lib' });

    const accepted = await upload(l, dists.publicLibPrivate!);
    assert.equal(accepted.status, 200, await accepted.text());
    // And now the private project shadows the upstream one.
    const shadowed = await get(`${l.url}/simple/public-lib/`, { Accept: PIP_ACCEPT });
    const doc = json<SimpleDoc>(shadowed);
    assert.deepEqual(
      doc.files.map((f) => f.filename),
      [dists.publicLibPrivate!.filename],
    );
    // Clients saw the upstream project's serial (2000) before: the project's serial does not go down.
    assert.ok(Number(shadowed.headers['x-pypi-last-serial']) > 2000, String(shadowed.headers['x-pypi-last-serial']));

    // A name the upstream does not have needs nothing.
    assert.equal((await upload(l, dists.newName!)).status, 200);
  });

  test('a new private name while the upstream cannot be asked is refused, not let through', async () => {
    const l = await larder();
    await up.setFault({ kind: 'down' });
    try {
      const res = await upload(l, dists.downName!);
      assert.ok(res.status >= 500 && res.status < 600, `status ${res.status}`);
      assert.match(await res.text(), /upstream/i);
    } finally {
      await up.setFault(null);
    }
    assert.equal((await get(`${l.url}/simple/name-while-down/`)).status, 404, 'nothing was published');
    assert.equal((await upload(l, dists.downName!)).status, 200, 'accepted once the upstream answers');
  });

  test('mergeAllowList merges the upstream files into the private project of that name', async () => {
    const l = await larder({ mergeAllowList: ['shared-lib'] });
    // Naming a project for merging is what allows creating it privately: no separate allow-name needed.
    const res = await upload(l, dists.sharedPrivate!);
    assert.equal(res.status, 200, await res.text());
    up.clearLog();
    const page = await get(`${l.url}/simple/shared-lib/`, { Accept: PIP_ACCEPT });
    assert.equal(page.status, 200);
    const doc = json<SimpleDoc>(page);
    assert.deepEqual(doc.files.map((f) => f.filename).sort(), [dists.sharedUp1!.filename, dists.sharedUp2!.filename, dists.sharedPrivate!.filename].sort());
    for (const f of doc.files) assert.ok(new URL(f.url, `${l.url}/simple/shared-lib/`).href.startsWith(`${l.url}/packages/shared-lib/`), f.url);
    assert.equal(up.requestsTo('/simple/shared-lib/').length, 1);
    assert.ok(Number(page.headers['x-pypi-last-serial']) >= 3000, 'the serial is at least the upstream one');
    assert.equal(page.headers['x-larder-cache'], 'miss', 'a merged page has the provenance of its upstream part');
    assert.ok(page.headers['x-larder-upstream'], 'and names the upstream');

    const upstreamFile = await get(`${l.url}/packages/shared-lib/${dists.sharedUp2!.filename}`);
    assert.equal(upstreamFile.status, 200);
    assert.equal(sha256Hex(upstreamFile.body), dists.sharedUp2!.sha256);
    const privateFile = await get(`${l.url}/packages/shared-lib/${dists.sharedPrivate!.filename}`);
    assert.equal(privateFile.status, 200);
    assert.equal(privateFile.headers['x-larder-cache'], undefined, 'a private file has no provenance');
    assert.equal(sha256Hex(privateFile.body), dists.sharedPrivate!.sha256);

    const api = json<{ releases: Record<string, unknown[]> }>(await get(`${l.url}/pypi/shared-lib/json`));
    assert.deepEqual(Object.keys(api.releases).sort(), ['1.0', '1.5', '2.0']);

    // Without the allow-list the same private project hides them.
    const plain = await larder();
    assert.equal((await allowName(plain, 'shared-lib', admin)).status, 200);
    assert.equal((await upload(plain, dists.sharedPrivate!)).status, 200);
    const hidden = json<SimpleDoc>(await get(`${plain.url}/simple/shared-lib/`, { Accept: PIP_ACCEPT }));
    assert.deepEqual(
      hidden.files.map((f) => f.filename),
      [dists.sharedPrivate!.filename],
    );
    assert.equal((await get(`${plain.url}/packages/shared-lib/${dists.sharedUp2!.filename}`)).status, 404);
  });

  test('/simple/ is the union of private and upstream names, each once, in HTML and JSON', async () => {
    const l = await larder();
    assert.equal((await upload(l, dists.newName!)).status, 200);
    assert.equal((await allowName(l, 'public-lib', admin)).status, 200);
    assert.equal((await upload(l, dists.publicLibPrivate!)).status, 200);
    const expected = ['acme-internal', 'brand-new-name', 'other-lib', 'public-lib', 'shared-lib'];

    const htmlRes = await get(`${l.url}/simple/`, { Accept: 'text/html' });
    assert.equal(htmlRes.status, 200);
    assert.match(String(htmlRes.headers['content-type']), /^text\/html/);
    const hrefs = [...htmlRes.body.toString().matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => m[1]!);
    const fromHtml = hrefs.map((h) => /\/simple\/([^/]+)\/$/.exec(new URL(h, `${l.url}/simple/`).pathname)![1]!);
    assert.deepEqual([...fromHtml].sort(), expected, 'each name once');

    const jsonRes = await get(`${l.url}/simple/`, { Accept: PIP_ACCEPT });
    assert.equal(jsonRes.status, 200);
    assert.equal(jsonRes.headers['content-type'], 'application/vnd.pypi.simple.v1+json');
    const root = json<{ projects: { name: string }[] }>(jsonRes);
    assert.deepEqual(root.projects.map((p) => normalizeName(p.name)).sort(), expected);
    assert.ok(Number(jsonRes.headers['x-pypi-last-serial']) >= up.lastSerial);
  });

  test('/simple/ with the upstream down and no stored upstream list lists the private and cached projects', async () => {
    const l = await larder();
    assert.equal((await upload(l, dists.newName!)).status, 200);
    assert.equal((await get(`${l.url}/simple/other-lib/`)).status, 200);
    await up.setFault({ kind: 'down' });
    try {
      const res = await get(`${l.url}/simple/`, { Accept: PIP_ACCEPT });
      assert.equal(res.status, 200, res.body.toString());
      const names = json<{ projects: { name: string }[] }>(res)
        .projects.map((p) => normalizeName(p.name))
        .sort();
      assert.deepEqual(names, ['brand-new-name', 'other-lib']);
    } finally {
      await up.setFault(null);
    }
  });

  test('offline mode: no upstream request at all; cached items served; uncached → 404 saying larder is offline', async () => {
    assert.equal(loadConfig({ env: { LARDER_OFFLINE: 'true' } }).offline, true, 'LARDER_OFFLINE=true turns it on');
    const data = await mkdtemp(join(tmpdir(), 'larder-offline-'));
    const online = await larder({}, data);
    const lib = dists.otherLib!;
    const base = online.url;
    const warm = [
      `${base}/simple/`,
      `${base}/simple/other-lib/`,
      `${base}/pypi/other-lib/json`,
      `${base}/packages/other-lib/${lib.filename}`,
      `${base}/packages/other-lib/${lib.filename}.metadata`,
    ];
    for (const url of warm) assert.equal((await get(url, { Accept: PIP_ACCEPT })).status, 200, url);
    assert.equal((await upload(online, dists.newName!)).status, 200);
    await online.stop();

    const offline = await larder({ offline: true }, data);
    up.clearLog();
    const page = await get(`${offline.url}/simple/other-lib/`, { Accept: PIP_ACCEPT });
    assert.equal(page.status, 200);
    assert.equal(page.headers['x-larder-cache'], 'hit');
    assert.equal(json<SimpleDoc>(page).files[0]!.hashes.sha256, lib.sha256);
    assert.equal((await get(`${offline.url}/simple/other-lib/`, { Accept: 'text/html' })).status, 200);
    const file = await get(`${offline.url}/packages/other-lib/${lib.filename}`);
    assert.equal(file.status, 200);
    assert.equal(sha256Hex(file.body), lib.sha256);
    const ranged = await get(`${offline.url}/packages/other-lib/${lib.filename}`, { Range: 'bytes=0-9' });
    assert.equal(ranged.status, 206);
    const md = await get(`${offline.url}/packages/other-lib/${lib.filename}.metadata`);
    assert.equal(md.status, 200);
    assert.ok(md.body.equals(lib.metadata));
    assert.equal((await get(`${offline.url}/pypi/other-lib/json`)).status, 200);
    assert.equal((await get(`${offline.url}/simple/brand-new-name/`)).status, 200, 'private projects are served');
    const root = await get(`${offline.url}/simple/`, { Accept: PIP_ACCEPT });
    assert.equal(root.status, 200);
    const names = json<{ projects: { name: string }[] }>(root).projects.map((p): string => normalizeName(p.name));
    assert.ok(names.includes('other-lib') && names.includes('brand-new-name'), names.join(','));

    const offlineMessage = (got: Got, what: string) => {
      assert.equal(got.status, 404, `${what}: ${got.status}`);
      const text = got.body.toString();
      assert.match(text, /offline/i, `${what}: says larder is offline`);
      assert.match(text, /not cached/i, `${what}: says the item is not cached`);
    };
    offlineMessage(await get(`${offline.url}/simple/public-lib/`, { Accept: PIP_ACCEPT }), 'uncached project page');
    offlineMessage(await get(`${offline.url}/simple/never-seen/`), 'unknown project page');
    offlineMessage(await get(`${offline.url}/packages/public-lib/${dists.publicLib!.filename}`), 'uncached file');
    // A project whose page is cached but whose file is not.
    const extra = await buildWheel(join(dir, 'extra'), { name: 'other-lib', version: '3.1' });
    offlineMessage(await get(`${offline.url}/packages/other-lib/${extra.filename}`), 'uncached file of a cached project');
    const api = await get(`${offline.url}/pypi/public-lib/json`);
    assert.equal(api.status, 404);
    assert.match(json<{ message: string }>(api).message, /offline.*not cached/i);

    assert.equal(up.requests.length, 0, `no request reached the upstream: ${up.requests.map((r) => r.path).join(', ')}`);
    await offline.close();
    await rm(data, { recursive: true, force: true });
  });
});
