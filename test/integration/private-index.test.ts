/** The private index over HTTP: upload with fetch, then every read API. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildSdist, buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { PIP_ACCEPT } from '../helpers/raw-get.js';
import { uploadForm } from '../helpers/upload-form.js';

describe('private index over HTTP', () => {
  let server: TestLarder;
  let dir: string;
  let wheel: BuiltDist;
  let sdist: BuiltDist;
  let wheel2: BuiltDist;
  let auth: string;

  const upload = async (dist: BuiltDist, extra: Record<string, string | string[]> = {}, headers: Record<string, string> = { Authorization: auth }) =>
    fetch(`${server.url}/legacy/`, { method: 'POST', body: await uploadForm(dist, extra), headers });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-dists-'));
    server = await startLarder();
    await server.addUser('alice', 'alice-password', false);
    await server.addUser('bob', 'bob-password', false);
    auth = basicAuth('alice', 'alice-password');
    wheel = await buildWheel(dir, { name: 'Acme.Widgets', version: '1.0', requiresPython: '>=3.8,<4' });
    sdist = await buildSdist(dir, { name: 'Acme.Widgets', version: '1.0' });
    wheel2 = await buildWheel(dir, { name: 'Acme.Widgets', version: '1.1rc1' });
    for (const dist of [wheel, sdist, wheel2]) {
      const res = await upload(dist, {
        classifiers: ['Programming Language :: Python :: 3', 'Topic :: Utilities'],
        project_urls: ['Home, https://example.test/', 'Source , https://example.test/src'],
      });
      assert.equal(res.status, 200, `${dist.filename}: ${res.statusText} ${await res.text()}`);
    }
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('non-normalized names and missing slashes redirect with 301', async () => {
    let res = await fetch(`${server.url}/simple/Acme.Widgets/`, { redirect: 'manual' });
    assert.equal(res.status, 301);
    assert.match(res.headers.get('location')!, /\/simple\/acme-widgets\/$/);
    res = await fetch(`${server.url}/simple/acme-widgets`, { redirect: 'manual' });
    assert.equal(res.status, 301);
    assert.match(res.headers.get('location')!, /\/simple\/acme-widgets\/$/);
    res = await fetch(`${server.url}/pypi/Acme_Widgets/json`, { redirect: 'manual' });
    assert.equal(res.status, 301);
    assert.match(res.headers.get('location')!, /\/pypi\/acme-widgets\/json$/);
  });

  test('an unknown project is a 404 with a text body', async () => {
    const res = await fetch(`${server.url}/simple/does-not-exist/`);
    assert.equal(res.status, 404);
    assert.equal(await res.text(), '404 Not Found');
    const json = await fetch(`${server.url}/pypi/does-not-exist/json`);
    assert.equal(json.status, 404);
    assert.match(json.headers.get('content-type')!, /^application\/json/);
    assert.deepEqual(await json.json(), { message: 'Not Found' });
  });

  test('negotiation picks HTML by default and JSON for pip', async () => {
    let res = await fetch(`${server.url}/simple/acme-widgets/`);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.match(res.headers.get('vary')!, /Accept/);
    res = await fetch(`${server.url}/simple/acme-widgets/`, { headers: { Accept: PIP_ACCEPT } });
    assert.equal(res.headers.get('content-type'), 'application/vnd.pypi.simple.v1+json');
    const doc = (await res.json()) as { name: string; files: { filename: string; hashes: Record<string, string>; size: number }[]; versions: string[] };
    assert.equal(doc.name, 'acme-widgets');
    assert.deepEqual(doc.files.map((f) => f.filename).sort(), [wheel.filename, sdist.filename, wheel2.filename].sort());
    assert.deepEqual([...doc.versions].sort(), ['1.0', '1.1rc1']);
    const w = doc.files.find((f) => f.filename === wheel.filename)!;
    assert.equal(w.hashes.sha256, wheel.sha256);
    assert.equal(w.size, wheel.size);
  });

  test('project page HTML carries hashes, requires-python, metadata and serial', async () => {
    const res = await fetch(`${server.url}/simple/acme-widgets/`, { headers: { Accept: 'text/html' } });
    const html = await res.text();
    assert.ok(html.includes(`#sha256=${wheel.sha256}"`));
    assert.ok(html.includes('data-requires-python="&gt;=3.8,&lt;4"'));
    assert.ok(html.includes(`data-core-metadata="sha256=${wheel.metadataSha256}"`));
    assert.ok(html.includes(`data-dist-info-metadata="sha256=${wheel.metadataSha256}"`));
    const serial = res.headers.get('x-pypi-last-serial');
    assert.match(serial!, /^\d+$/);
    assert.ok(html.trimEnd().endsWith(`<!--SERIAL ${serial}-->`));
    assert.ok(!html.includes('data-gpg-sig'));
  });

  test('ETag and If-None-Match give a 304', async () => {
    const first = await fetch(`${server.url}/simple/acme-widgets/`);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/);
    const second = await fetch(`${server.url}/simple/acme-widgets/`, { headers: { 'If-None-Match': etag } });
    assert.equal(second.status, 304);
    assert.equal(await second.text(), '');
    const json = await fetch(`${server.url}/pypi/acme-widgets/json`);
    const again = await fetch(`${server.url}/pypi/acme-widgets/json`, { headers: { 'If-None-Match': json.headers.get('etag')! } });
    assert.equal(again.status, 304);
  });

  test('file bytes and .metadata match the advertised hashes', async () => {
    const pageUrl = `${server.url}/simple/acme-widgets/`;
    const page = (await (await fetch(pageUrl, { headers: { Accept: PIP_ACCEPT } })).json()) as {
      files: { filename: string; url: string; hashes: { sha256: string }; 'core-metadata': { sha256: string } | false }[];
    };
    // The URLs are relative to the page (no LARDER_PUBLIC_URL), resolved as installers do.
    for (const file of page.files) file.url = new URL(file.url, pageUrl).href;
    for (const file of page.files) {
      const bytes = Buffer.from(await (await fetch(file.url)).arrayBuffer());
      assert.equal(createHash('sha256').update(bytes).digest('hex'), file.hashes.sha256, file.filename);
    }
    const w = page.files.find((f) => f.filename === wheel.filename)!;
    assert.ok(w['core-metadata']);
    const meta = Buffer.from(await (await fetch(`${w.url}.metadata`)).arrayBuffer());
    assert.deepEqual(meta, wheel.metadata);
    assert.equal(createHash('sha256').update(meta).digest('hex'), (w['core-metadata'] as { sha256: string }).sha256);
    const s = page.files.find((f) => f.filename === sdist.filename)!;
    assert.equal(s['core-metadata'], false);
    assert.equal((await fetch(`${s.url}.metadata`)).status, 404);
  });

  test('HEAD, ranges, suffix ranges, 416 and immutable caching', async () => {
    const url = `${server.url}/packages/acme-widgets/${wheel.filename}`;
    const bytes = await readFile(wheel.path);
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(bytes.length));
    assert.equal(head.headers.get('accept-ranges'), 'bytes');
    assert.match(head.headers.get('cache-control')!, /max-age=365000000, immutable/);
    let res = await fetch(url, { headers: { Range: 'bytes=0-99' } });
    assert.equal(res.status, 206);
    assert.equal(res.headers.get('content-range'), `bytes 0-99/${bytes.length}`);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes.subarray(0, 100));
    res = await fetch(url, { headers: { Range: 'bytes=-100' } });
    assert.equal(res.status, 206);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes.subarray(bytes.length - 100));
    res = await fetch(url, { headers: { Range: `bytes=-${bytes.length + 50}` } });
    assert.equal(res.status, 206);
    assert.equal((await res.arrayBuffer()).byteLength, bytes.length);
    res = await fetch(url, { headers: { Range: `bytes=${bytes.length}-` } });
    assert.equal(res.status, 416);
    assert.equal(res.headers.get('content-range'), `bytes */${bytes.length}`);
    res = await fetch(url, { headers: { 'If-None-Match': head.headers.get('etag')! } });
    assert.equal(res.status, 304);
  });

  test('JSON API: latest release, file dicts, releases in both documents, canonical version lookup', async () => {
    const doc = (await (await fetch(`${server.url}/pypi/acme-widgets/json`)).json()) as Record<string, any>;
    assert.equal(doc.info.version, '1.0', 'a final release beats a newer pre-release');
    assert.equal(doc.info.name, 'Acme.Widgets');
    assert.deepEqual(doc.info.classifiers, ['Programming Language :: Python :: 3', 'Topic :: Utilities']);
    assert.deepEqual(doc.info.project_urls, { Home: 'https://example.test/', Source: 'https://example.test/src' });
    assert.equal(doc.info.requires_python, '>=3.8,<4');
    assert.deepEqual(Object.keys(doc.releases).sort(), ['1.0', '1.1rc1']);
    assert.equal(doc.urls.length, 2);
    const file = doc.urls.find((f: { filename: string }) => f.filename === wheel.filename);
    assert.equal(file.digests.sha256, wheel.sha256);
    assert.equal(file.digests.md5, wheel.md5);
    assert.equal(file.digests.blake2b_256, wheel.blake2b_256);
    assert.equal(file.packagetype, 'bdist_wheel');
    assert.match(file.upload_time_iso_8601, /Z$/);
    assert.deepEqual(doc.vulnerabilities, []);
    const release = (await (await fetch(`${server.url}/pypi/acme-widgets/1.0.0/json`)).json()) as Record<string, any>;
    assert.equal(release.info.version, '1.0');
    assert.deepEqual(Object.keys(release.releases).sort(), ['1.0', '1.1rc1'], 'the release document lists every release too (docs/index-api.md)');
    assert.equal(release.info.project_urls, undefined, 'project_urls is left out of the release document (docs/index-api.md)');
    const alias = await fetch(`${server.url}/index/acme-widgets/1.1rc1/json`);
    assert.equal(alias.status, 200);
    assert.equal((await fetch(`${server.url}/pypi/acme-widgets/9.9/json`)).status, 404);
  });

  test('an identical re-upload is 200 and changes nothing; different bytes are a 409', async () => {
    const serialBefore = await server.larder.meta.lastSerial();
    const same = await upload(wheel);
    assert.equal(same.status, 200);
    assert.equal(await server.larder.meta.lastSerial(), serialBefore);
    const other = await buildWheel(join(dir, 'other'), { name: 'Acme.Widgets', version: '1.0', modules: { 'acme_widgets/__init__.py': 'VALUE = 2\n' } });
    const res = await upload(other);
    assert.equal(res.status, 409);
    assert.match(res.statusText, /^File already exists/);
    assert.match(await res.text(), /^File already exists/);
  });

  test('missing credentials get a 401 challenge, wrong ones a 403, strangers a 403', async () => {
    let res = await upload(wheel2, {}, {});
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate')!, /^Basic realm=/);
    res = await upload(wheel2, {}, { Authorization: basicAuth('alice', 'wrong') });
    assert.equal(res.status, 403);
    const bobs = await buildWheel(join(dir, 'bob'), { name: 'Acme.Widgets', version: '2.0' });
    res = await upload(bobs, {}, { Authorization: basicAuth('bob', 'bob-password') });
    assert.equal(res.status, 403);
    assert.match(res.statusText, /isn't allowed to upload to project/);
  });

  test('tokens work as __token__ and are limited to their projects', async () => {
    const token = await server.addToken('alice', ['acme-widgets']);
    const w = await buildWheel(join(dir, 'tok'), { name: 'Acme.Widgets', version: '3.0' });
    let res = await upload(w, {}, { Authorization: basicAuth('__token__', token) });
    assert.equal(res.status, 200, res.statusText);
    const other = await buildWheel(join(dir, 'tok2'), { name: 'other-thing', version: '1.0' });
    res = await upload(other, {}, { Authorization: basicAuth('__token__', token) });
    assert.equal(res.status, 403);
    res = await upload(other, {}, { Authorization: basicAuth('__token__', 'larder-nope') });
    assert.equal(res.status, 403);
  });

  test('POST /legacy (no slash) uploads like /legacy/, without a redirect (twine treats any 3xx as fatal)', async () => {
    const noSlash = await buildWheel(join(dir, 'no-slash'), { name: 'Acme.Widgets', version: '1.2' });
    const res = await fetch(`${server.url}/legacy`, { method: 'POST', body: await uploadForm(noSlash), headers: { Authorization: auth }, redirect: 'manual' });
    assert.equal(res.status, 200, res.statusText);
    assert.equal(res.headers.get('location'), null);
    const page = await fetch(`${server.url}/simple/acme-widgets/`, { headers: { Accept: PIP_ACCEPT } });
    const files = ((await page.json()) as { files: { filename: string }[] }).files.map((f) => f.filename);
    assert.ok(files.includes(noSlash.filename), files.join(' '));
    const refused = await fetch(`${server.url}/legacy`, { method: 'POST', body: await uploadForm(noSlash), redirect: 'manual' });
    assert.equal(refused.status, 401, 'the same credentials rule as /legacy/');
  });

  test('yank over the admin API shows in HTML and JSON; serials only grow', async () => {
    const before = Number((await fetch(`${server.url}/simple/acme-widgets/`)).headers.get('x-pypi-last-serial'));
    let res = await fetch(`${server.url}/api/projects/acme-widgets/releases/1.0/yank`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ reason: 'broken build' }),
    });
    assert.equal(res.status, 200, await res.text());
    const page = await fetch(`${server.url}/simple/acme-widgets/`);
    assert.ok(Number(page.headers.get('x-pypi-last-serial')) > before);
    assert.ok((await page.text()).includes('data-yanked="broken build"'));
    const doc = (await (await fetch(`${server.url}/pypi/acme-widgets/1.0/json`)).json()) as Record<string, any>;
    assert.equal(doc.info.yanked, true);
    assert.equal(doc.info.yanked_reason, 'broken build');
    res = await fetch(`${server.url}/api/projects/acme-widgets/releases/1.0/unyank`, { method: 'POST', headers: { Authorization: auth } });
    assert.equal(res.status, 200);
    res = await fetch(`${server.url}/api/projects/acme-widgets/releases/1.0/yank`, {
      method: 'POST',
      headers: { Authorization: basicAuth('bob', 'bob-password') },
    });
    assert.equal(res.status, 403);
  });

  test('root index lists projects in HTML and JSON; stats and health answer', async () => {
    const html = await (await fetch(`${server.url}/simple/`)).text();
    assert.ok(html.includes('<a href="acme-widgets/">Acme.Widgets</a>'), html);
    const json = (await (await fetch(`${server.url}/simple/`, { headers: { Accept: PIP_ACCEPT } })).json()) as { projects: { name: string }[] };
    assert.ok(json.projects.some((p) => p.name === 'Acme.Widgets'));
    const stats = (await (await fetch(`${server.url}/stats/`, { headers: { Accept: 'application/json' } })).json()) as {
      top_packages: Record<string, { size: number }>;
      total_packages_size: number;
    };
    assert.ok(stats.top_packages['Acme.Widgets']!.size > 0);
    assert.ok(stats.total_packages_size >= stats.top_packages['Acme.Widgets']!.size);
    const statsHtml = await fetch(`${server.url}/stats`);
    assert.match(statsHtml.headers.get('content-type')!, /^text\/html/);
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });

  test('path tricks in file URLs are refused and the server stays healthy', async () => {
    for (const path of ['/packages/acme-widgets/..%2F..%2Fetc%2Fpasswd', '/packages/acme-widgets/a%5Cb.whl', '/packages/acme-widgets/%00.whl']) {
      const res = await fetch(`${server.url}${path}`);
      assert.ok(res.status === 400 || res.status === 404, `${path}: ${res.status}`);
    }
    const garbage = await fetch(`${server.url}/legacy/`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'multipart/form-data; boundary=x' },
      body: 'not multipart at all',
    });
    assert.equal(garbage.status, 400);
    assert.ok(garbage.statusText.length > 0);
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });
});
