/** Tests of the test fixtures themselves: built distributions, the fake upstream, the client helpers. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import * as tar from 'tar-stream';
import { Agent, request } from 'undici';
import * as yauzl from 'yauzl';
import { buildLargeFile, buildSdist, buildWheel, largeFileStream, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, startLoggingServer, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { recordDigest, sha256Hex } from '../fixtures/hashes.js';
import { syntheticReleases } from '../fixtures/synthetic-dists.js';
import { rawGet } from '../helpers/raw-get.js';
import { dechunk, rawRequest } from '../helpers/raw-socket.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const PIP_ACCEPT = 'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01';
const JSON_TYPE = 'application/vnd.pypi.simple.v1+json';

const get = (url: string, opts: { headers?: Record<string, string>; timeoutMs?: number; method?: string } = {}) => rawGet(url, { timeoutMs: 10_000, ...opts });

async function readZip(path: string): Promise<Map<string, Buffer>> {
  const zip = await yauzl.openPromise(path);
  const out = new Map<string, Buffer>();
  try {
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
      out.set(entry.fileName, Buffer.concat(chunks));
    }
  } finally {
    zip.close();
  }
  return out;
}

async function readTarGz(path: string): Promise<Map<string, Buffer>> {
  const extract = tar.extract();
  const out = new Map<string, Buffer>();
  Readable.from(await readFile(path))
    .pipe(createGunzip())
    .pipe(extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(c as Buffer);
    out.set(entry.header.name, Buffer.concat(chunks));
  }
  return out;
}

describe('test fixtures', () => {
  const tmp = suiteTempDir('larder-fixtures-');
  let upstream: FakeUpstream;
  let lib1: BuiltDist;
  let lib2: BuiltDist;
  let libSdist: BuiltDist;
  let app: BuiltDist;
  let src: BuiltDist;
  let blob: BuiltDist;

  before(async () => {
    const dists = join(tmp, 'dists');
    lib1 = await buildWheel(dists, { name: 'FX_Lib', version: '1.0', requiresPython: '>=3.8,<4' });
    lib2 = await buildWheel(dists, { name: 'FX_Lib', version: '2.0', summary: 'second' });
    libSdist = await buildSdist(dists, { name: 'FX_Lib', version: '1.0' });
    app = await buildWheel(dists, { name: 'fx-app', version: '0.1', requiresDist: ['fx-lib>=1'] });
    src = await buildSdist(dists, { name: 'fx.src', version: '3.0' });
    blob = await buildWheel(dists, { name: 'fx-blob', version: '1.0', dataFile: { bytes: 40_000 } });
    upstream = await startFakeUpstream();
    upstream.addProject('FX_Lib', [lib1, libSdist, lib2], { yanked: { [lib2.filename]: 'broken <build>' } });
    upstream.addProject('fx-app', [app]);
    upstream.addProject('fx.src', [src]);
    upstream.addProject('fx-blob', [blob]);
  });

  after(async () => {
    await upstream?.close();
  });

  describe('dists', () => {
    test('a wheel is a valid zip whose RECORD matches every entry', async () => {
      assert.equal(lib1.filename, 'fx_lib-1.0-py3-none-any.whl');
      const entries = await readZip(lib1.path);
      const record = entries.get('fx_lib-1.0.dist-info/RECORD')!.toString('utf8').trim().split('\n');
      assert.deepEqual([...entries.keys()].sort(), record.map((line) => line.split(',')[0]).sort());
      for (const line of record) {
        const [path, digest, size] = line.split(',');
        if (path === 'fx_lib-1.0.dist-info/RECORD') {
          assert.equal(`${digest},${size}`, ',');
          continue;
        }
        const data = entries.get(path!)!;
        assert.equal(digest, recordDigest(data), path);
        assert.equal(Number(size), data.length, path);
      }
      assert.deepEqual(entries.get('fx_lib-1.0.dist-info/METADATA'), lib1.metadata);
      assert.match(lib1.metadata.toString(), /^Metadata-Version: 2\.1\nName: FX_Lib\nVersion: 1\.0\n.*Requires-Python: >=3\.8,<4\n/s);
      assert.match(entries.get('fx_lib-1.0.dist-info/WHEEL')!.toString(), /Wheel-Version: 1\.0\n.*Root-Is-Purelib: true\nTag: py3-none-any\n/s);
      assert.equal(entries.get('fx_lib/__init__.py')!.toString(), 'VALUE = "FX_Lib 1.0"\n');
      const bytes = await readFile(lib1.path);
      assert.equal(lib1.sha256, sha256Hex(bytes));
      assert.equal(lib1.size, bytes.length);
      assert.equal(lib1.metadataSha256, sha256Hex(lib1.metadata));
    });

    test('the same spec builds the same bytes', async () => {
      const again = await buildWheel(join(tmp, 'again'), { name: 'FX_Lib', version: '1.0', requiresPython: '>=3.8,<4' });
      assert.equal(again.sha256, lib1.sha256);
    });

    test('wheel tags, build tag and a large stored data file', async () => {
      const w = await buildWheel(join(tmp, 'tags'), {
        name: 'x.y',
        version: '1.0',
        buildTag: '1',
        pythonTag: 'py2.py3',
        platformTag: 'any',
      });
      assert.equal(w.filename, 'x_y-1.0-1-py2.py3-none-any.whl');
      const wheelFile = (await readZip(w.path)).get('x_y-1.0.dist-info/WHEEL')!.toString();
      assert.match(wheelFile, /Tag: py2-none-any\nTag: py3-none-any\nBuild: 1\n/);
      const entries = await readZip(blob.path);
      const data = entries.get('fx_blob/_data.bin')!;
      assert.equal(data.length, 40_000);
      assert.ok(
        entries
          .get('fx_blob-1.0.dist-info/RECORD')!
          .toString()
          .includes(`fx_blob/_data.bin,${recordDigest(data)},40000`),
      );
    });

    test('an sdist is a tar.gz with one top-level directory holding PKG-INFO, pyproject.toml and the module', async () => {
      assert.equal(libSdist.filename, 'fx_lib-1.0.tar.gz');
      const entries = await readTarGz(libSdist.path);
      const names = [...entries.keys()];
      assert.ok(
        names.every((n) => n.startsWith('fx_lib-1.0/')),
        names.join(' '),
      );
      assert.deepEqual(entries.get('fx_lib-1.0/PKG-INFO'), libSdist.metadata);
      assert.match(entries.get('fx_lib-1.0/pyproject.toml')!.toString(), /\[project\]\nname = "FX_Lib"\nversion = "1.0"/);
      assert.ok(entries.has('fx_lib-1.0/fx_lib/__init__.py'));
      assert.equal(libSdist.packagetype, 'sdist');
      assert.equal(libSdist.pythonVersion, 'source');
    });

    test('legacy sdist filenames and zip sdists', async () => {
      const legacy = await buildSdist(join(tmp, 'legacy'), { name: 'acme_internal', version: '1.0', legacyFilename: true });
      assert.equal(legacy.filename, 'acme-internal-1.0.tar.gz');
      assert.ok([...(await readTarGz(legacy.path)).keys()].every((n) => n.startsWith('acme-internal-1.0/')));
      const zipped = await buildSdist(join(tmp, 'legacy'), { name: 'acme_internal', version: '1.0', format: 'zip' });
      assert.equal(zipped.filename, 'acme_internal-1.0.zip');
      const entries = await readZip(zipped.path);
      assert.deepEqual(entries.get('acme_internal-1.0/PKG-INFO'), zipped.metadata);
    });

    test('large files are deterministic per seed and match their stream', async () => {
      const a = await buildLargeFile(join(tmp, 'large', 'a.bin'), 3 * 1024 * 1024 + 17);
      const b = await buildLargeFile(join(tmp, 'large', 'b.bin'), 3 * 1024 * 1024 + 17);
      const c = await buildLargeFile(join(tmp, 'large', 'c.bin'), 3 * 1024 * 1024 + 17, 'other');
      assert.equal(a.size, 3 * 1024 * 1024 + 17);
      assert.equal(a.sha256, b.sha256);
      assert.notEqual(a.sha256, c.sha256);
      assert.equal(sha256Hex(await readFile(a.path)), a.sha256);
      const streamed = createHash('sha256');
      for await (const chunk of largeFileStream(a.size)) streamed.update(chunk as Buffer);
      assert.equal(streamed.digest('hex'), a.sha256);
    });
  });

  describe('fake upstream: pages', () => {
    test('project page in PEP 691 JSON', async () => {
      const res = await get(`${upstream.url}fx-lib/`, { headers: { Accept: PIP_ACCEPT } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(res.headers.vary, 'Accept');
      assert.equal(res.headers['cache-control'], 'max-age=600, public');
      const serial = upstream.project('fx-lib')!.serial;
      assert.equal(res.headers['x-pypi-last-serial'], String(serial));
      const doc = JSON.parse(res.body.toString());
      assert.equal(doc.meta['api-version'], '1.4');
      assert.equal(doc.meta['_last-serial'], serial);
      assert.equal(doc.name, 'fx-lib');
      assert.deepEqual(doc.versions, ['1.0', '2.0']);
      assert.deepEqual(
        doc.files.map((f: { filename: string }) => f.filename),
        [lib1.filename, libSdist.filename, lib2.filename],
      );
      const [wheel, sdist, yanked] = doc.files;
      assert.deepEqual(wheel.hashes, { sha256: lib1.sha256 });
      assert.equal(wheel.url, upstream.fileUrl(lib1));
      assert.equal(wheel.size, lib1.size);
      assert.equal(wheel['requires-python'], '>=3.8,<4');
      assert.equal(wheel.yanked, false);
      assert.deepEqual(wheel['core-metadata'], { sha256: lib1.metadataSha256 });
      assert.deepEqual(wheel['data-dist-info-metadata'], { sha256: lib1.metadataSha256 });
      assert.equal('dist-info-metadata' in wheel, false);
      assert.match(wheel['upload-time'], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      assert.equal(sdist['core-metadata'], false);
      assert.equal(yanked.yanked, 'broken <build>');
      assert.equal(yanked['requires-python'], null);
      assert.ok(res.body.toString().endsWith('}\n'));
    });

    test('project page in HTML, shaped like PyPI', async () => {
      for (const accept of [undefined, 'text/html', '*/*']) {
        const res = await get(`${upstream.url}fx-lib/`, { headers: accept ? { Accept: accept } : {} });
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      }
      const res = await get(`${upstream.url}fx-lib/`);
      const html = res.body.toString();
      assert.match(html, /<meta name="pypi:repository-version" content="1.4">/);
      assert.ok(
        html.includes(
          `<a href="${upstream.fileUrl(lib1)}#sha256=${lib1.sha256}" data-requires-python="&gt;=3.8,&lt;4" ` +
            `data-dist-info-metadata="sha256=${lib1.metadataSha256}" data-core-metadata="sha256=${lib1.metadataSha256}">${lib1.filename}</a><br />`,
        ),
        html,
      );
      assert.ok(html.includes(`data-yanked="broken &lt;build&gt;"`));
      assert.ok(html.includes(`<a href="${upstream.fileUrl(libSdist)}#sha256=${libSdist.sha256}">${libSdist.filename}</a><br />`));
      assert.ok(html.endsWith(`</html>\n<!--SERIAL ${upstream.project('fx-lib')!.serial}-->`));
      const v1html = await get(`${upstream.url}fx-lib/`, { headers: { Accept: 'application/vnd.pypi.simple.v1+html' } });
      assert.equal(v1html.headers['content-type'], 'application/vnd.pypi.simple.v1+html');
    });

    test('format parameter, latest+json, q=0 and an HTML-only index', async () => {
      const fmt = await get(`${upstream.url}fx-lib/?format=${encodeURIComponent(JSON_TYPE)}`, { headers: { Accept: 'text/html' } });
      assert.equal(fmt.headers['content-type'], JSON_TYPE);
      const latest = await get(`${upstream.url}fx-lib/`, { headers: { Accept: 'application/vnd.pypi.simple.latest+json' } });
      assert.equal(latest.headers['content-type'], JSON_TYPE);
      const q0 = await get(`${upstream.url}fx-lib/`, { headers: { Accept: `${JSON_TYPE};q=0, text/html` } });
      assert.equal(q0.headers['content-type'], 'text/html; charset=utf-8');
      upstream.configure({ htmlOnly: true, relativeUrls: true });
      try {
        const res = await get(`${upstream.url}fx-lib/`, { headers: { Accept: PIP_ACCEPT } });
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
        assert.ok(res.body.toString().includes(`href="../../files/${lib1.sha256.slice(0, 2)}/${lib1.sha256}/${lib1.filename}#sha256=`));
      } finally {
        upstream.configure({ htmlOnly: false, relativeUrls: false });
      }
    });

    test('root listing in JSON and HTML', async () => {
      const json = await get(upstream.url, { headers: { Accept: JSON_TYPE } });
      const doc = JSON.parse(json.body.toString());
      assert.equal(doc.meta['_last-serial'], upstream.lastSerial);
      assert.deepEqual(
        doc.projects.map((p: { name: string }) => p.name),
        ['fx-app', 'fx-blob', 'FX_Lib', 'fx.src'],
      );
      assert.equal(doc.projects[2]['_last-serial'], upstream.project('fx-lib')!.serial);
      const html = (await get(upstream.url)).body.toString();
      assert.ok(html.includes('<a href="/simple/fx-lib/">FX_Lib</a>'));
      assert.ok(html.includes('<title>Simple index</title>'));
    });

    test('redirects and 404s', async () => {
      const r1 = await get(`${upstream.url}FX_Lib/`);
      assert.equal(r1.status, 301);
      assert.equal(r1.headers.location, '/simple/fx-lib/');
      const r2 = await get(`${upstream.url}fx-lib`);
      assert.equal(r2.status, 301);
      assert.equal(r2.headers.location, '/simple/fx-lib/');
      const missing = await get(`${upstream.url}nope/`);
      assert.equal(missing.status, 404);
      assert.equal(missing.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(missing.body.toString(), '404 Not Found');
      const api = await get(`${upstream.origin}/pypi/FX.Lib/json`);
      assert.equal(api.status, 301);
      assert.equal(api.headers.location, '/pypi/fx-lib/json');
    });

    test('ETag and Last-Modified give 304; a change gives a new page and serial', async () => {
      const first = await get(`${upstream.url}fx-app/`, { headers: { Accept: JSON_TYPE } });
      const etag = first.headers.etag!;
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
      const cached = await get(`${upstream.url}fx-app/`, { headers: { Accept: JSON_TYPE, 'If-None-Match': etag } });
      assert.equal(cached.status, 304);
      assert.equal(cached.body.length, 0);
      assert.equal(cached.headers.etag, etag);
      const since = await get(`${upstream.url}fx-app/`, {
        headers: { Accept: JSON_TYPE, 'If-Modified-Since': first.headers['last-modified']! },
      });
      assert.equal(since.status, 304);
      // Another representation has another ETag.
      const html = await get(`${upstream.url}fx-app/`, { headers: { 'If-None-Match': etag } });
      assert.equal(html.status, 200);

      const before = upstream.project('fx-app')!.serial;
      upstream.yank('fx-app', app.filename, 'oops');
      const changed = await get(`${upstream.url}fx-app/`, { headers: { Accept: JSON_TYPE, 'If-None-Match': etag } });
      assert.equal(changed.status, 200);
      assert.notEqual(changed.headers.etag, etag);
      assert.ok(Number(changed.headers['x-pypi-last-serial']) > before);
      assert.equal(JSON.parse(changed.body.toString()).files[0].yanked, 'oops');
      const modified = await get(`${upstream.url}fx-app/`, {
        headers: { Accept: JSON_TYPE, 'If-Modified-Since': first.headers['last-modified']! },
      });
      assert.equal(modified.status, 200);
      upstream.unyank('fx-app', app.filename);
    });

    test('JSON API, project and version, and switched off', async () => {
      const res = await get(`${upstream.origin}/pypi/fx-lib/json`);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers['cache-control'], 'max-age=900, public');
      const doc = JSON.parse(res.body.toString());
      // 2.0 is yanked, so the latest is 1.0.
      assert.equal(doc.info.version, '1.0');
      assert.equal(doc.info.name, 'FX_Lib');
      assert.equal(doc.info.requires_python, '>=3.8,<4');
      assert.equal(doc.last_serial, upstream.project('fx-lib')!.serial);
      assert.deepEqual(Object.keys(doc.releases), ['1.0', '2.0']);
      assert.equal(doc.releases['2.0'][0].yanked, true);
      assert.equal(doc.releases['2.0'][0].yanked_reason, 'broken <build>');
      const wheel = doc.urls.find((u: { filename: string }) => u.filename === lib1.filename);
      assert.deepEqual(wheel.digests, { blake2b_256: lib1.blake2b_256, md5: lib1.md5, sha256: lib1.sha256 });
      assert.equal(wheel.packagetype, 'bdist_wheel');
      assert.equal(wheel.python_version, 'py3');
      assert.match(wheel.upload_time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      assert.deepEqual(doc.vulnerabilities, []);

      const version = JSON.parse((await get(`${upstream.origin}/pypi/fx-lib/2/json`)).body.toString());
      assert.equal(version.info.version, '2.0');
      assert.equal(version.info.summary, 'second');
      assert.equal('releases' in version, false);
      const missing = await get(`${upstream.origin}/pypi/fx-lib/9.9/json`);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.toString(), '{"message": "Not Found"}');

      upstream.configure({ jsonApi: false });
      try {
        assert.equal((await get(`${upstream.origin}/pypi/fx-lib/json`)).status, 404);
      } finally {
        upstream.configure({ jsonApi: true });
      }
    });

    test('optional Basic auth', async () => {
      upstream.configure({ auth: { username: 'u', password: 'p' } });
      try {
        const denied = await get(`${upstream.url}fx-lib/`);
        assert.equal(denied.status, 401);
        assert.match(String(denied.headers['www-authenticate']), /^Basic /);
        const ok = await get(`${upstream.url}fx-lib/`, { headers: { Authorization: `Basic ${Buffer.from('u:p').toString('base64')}` } });
        assert.equal(ok.status, 200);
      } finally {
        upstream.configure({ auth: null });
      }
    });

    test('files and .metadata are served with the advertised hashes', async () => {
      const file = await get(upstream.fileUrl(lib1));
      assert.equal(file.status, 200);
      assert.equal(file.headers['content-length'], String(lib1.size));
      assert.equal(sha256Hex(file.body), lib1.sha256);
      const meta = await get(upstream.fileUrl(lib1, '.metadata'));
      assert.deepEqual(meta.body, lib1.metadata);
      assert.equal(sha256Hex(meta.body), lib1.metadataSha256);
      assert.equal((await get(upstream.fileUrl(libSdist, '.metadata'))).status, 404);
      const head = await get(upstream.fileUrl(blob), { method: 'HEAD' });
      assert.equal(head.headers['content-length'], String(blob.size));
      assert.equal(head.body.length, 0);
    });

    test('with ranges, a single byte range of a file is a 206; without, the whole file', async () => {
      const whole = await readFile(join(tmp, 'dists', blob.filename));
      const asked = (range: string) => get(upstream.fileUrl(blob), { headers: { range } });
      assert.equal((await asked('bytes=0-9')).status, 200, 'ranges are off by default');
      upstream.configure({ ranges: true });
      try {
        const first = await asked('bytes=0-9');
        assert.equal(first.status, 206);
        assert.equal(first.headers['content-range'], `bytes 0-9/${blob.size}`);
        assert.deepEqual(first.body, whole.subarray(0, 10));
        const tail = await asked('bytes=-100');
        assert.equal(tail.headers['content-range'], `bytes ${blob.size - 100}-${blob.size - 1}/${blob.size}`);
        assert.deepEqual(tail.body, whole.subarray(-100));
        const open = await asked(`bytes=${blob.size - 5}-`);
        assert.deepEqual(open.body, whole.subarray(-5));
        const past = await asked(`bytes=${blob.size}-`);
        assert.equal(past.status, 416);
        assert.equal(past.headers['content-range'], `bytes */${blob.size}`);
        const several = await asked('bytes=0-1,5-6');
        assert.equal(several.status, 200);
        assert.equal(several.body.length, blob.size);
      } finally {
        upstream.configure({ ranges: false });
      }
    });
  });

  describe('fake upstream: faults', () => {
    test('down refuses connections and comes back on the same port', async () => {
      const port = upstream.port;
      await upstream.setFault({ kind: 'down' });
      await assert.rejects(get(upstream.url), (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED');
      await upstream.setFault(null);
      assert.equal(upstream.port, port);
      assert.equal((await get(`${upstream.url}fx-lib/`)).status, 200);
    });

    test('refuse destroys the socket, and the request is logged', async () => {
      upstream.clearLog();
      await upstream.setFault({ kind: 'refuse' });
      try {
        await assert.rejects(get(`${upstream.url}fx-lib/`), (err: NodeJS.ErrnoException) => err.code === 'ECONNRESET');
      } finally {
        await upstream.setFault(null);
      }
      const [entry] = upstream.requests;
      assert.equal(entry?.path, '/simple/fx-lib/');
      assert.equal(entry?.fault, 'refuse');
      assert.equal(entry?.status, null);
    });

    test('hang never answers, so the client times out', async () => {
      await upstream.setFault({ kind: 'hang', count: 1 });
      const started = Date.now();
      await assert.rejects(get(`${upstream.url}fx-lib/`, { timeoutMs: 300 }), /client timeout/);
      assert.ok(Date.now() - started >= 250);
      assert.equal(upstream.faults.length, 0);
      assert.equal((await get(`${upstream.url}fx-lib/`)).status, 200);
    });

    test('hang with afterBytes sends the head and part of the body, then stalls', async () => {
      await upstream.setFault({ kind: 'hang', afterBytes: 100, pathPrefix: '/files/', count: 1 });
      const res = await get(upstream.fileUrl(blob), { timeoutMs: 300 });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-length'], String(blob.size));
      assert.equal(res.body.length, 100);
      assert.ok(res.error);
    });

    test('slow delays the first byte, or throttles the body', async () => {
      // Only lower bounds of the fake upstream's own sleeps: a busy machine can make them longer, never shorter.
      await upstream.setFault({ kind: 'slow', delayMs: 300, count: 1 });
      let started = Date.now();
      assert.equal((await get(`${upstream.url}fx-lib/`)).status, 200);
      assert.ok(Date.now() - started >= 280, `took ${Date.now() - started} ms`);

      await upstream.setFault({ kind: 'slow', bytesPerSecond: 100_000, pathPrefix: '/files/' });
      try {
        started = Date.now();
        const res = await get(upstream.fileUrl(blob));
        const took = Date.now() - started;
        assert.equal(sha256Hex(res.body), blob.sha256);
        // ~40 KB at 100 KB/s
        assert.ok(took >= 300, `took ${took} ms`);
      } finally {
        await upstream.setFault(null);
      }
    });

    test('status500 for the next n requests, then normal service', async () => {
      await upstream.setFault({ kind: 'status500', count: 2 });
      assert.equal((await get(`${upstream.url}fx-lib/`)).status, 500);
      assert.equal((await get(`${upstream.url}fx-lib/`)).status, 500);
      assert.equal((await get(`${upstream.url}fx-lib/`)).status, 200);
      await upstream.setFault({ kind: 'status', status: 503, headers: { 'Retry-After': '1' } });
      try {
        const res = await get(`${upstream.url}fx-lib/`);
        assert.equal(res.status, 503);
        assert.equal(res.headers['retry-after'], '1');
      } finally {
        await upstream.setFault(null);
      }
    });

    test('a path prefix limits a fault to matching requests', async () => {
      await upstream.setFault({ kind: 'status500', pathPrefix: '/files/' });
      try {
        assert.equal((await get(`${upstream.url}fx-lib/`)).status, 200);
        assert.equal((await get(upstream.fileUrl(lib1))).status, 500);
      } finally {
        await upstream.setFault(null);
      }
    });

    test('truncate sends Content-Length but cuts the body', async () => {
      await upstream.setFault({ kind: 'truncate', count: 1 });
      const res = await get(upstream.fileUrl(blob));
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-length'], String(blob.size));
      assert.ok(res.body.length < blob.size, `${res.body.length} < ${blob.size}`);
      assert.ok(res.error, 'the body should end in an error');
      assert.equal(upstream.requests.at(-1)?.completed, false);
    });

    test('wrongHash serves other bytes than the page advertises, pages unaffected', async () => {
      await upstream.setFault({ kind: 'wrongHash' });
      try {
        const page = JSON.parse((await get(`${upstream.url}fx-lib/`, { headers: { Accept: JSON_TYPE } })).body.toString());
        const advertised = page.files.find((f: { filename: string }) => f.filename === lib1.filename).hashes.sha256;
        assert.equal(advertised, lib1.sha256);
        const res = await get(upstream.fileUrl(lib1));
        assert.equal(res.status, 200);
        assert.equal(res.body.length, lib1.size);
        assert.notEqual(sha256Hex(res.body), advertised);
      } finally {
        await upstream.setFault(null);
      }
    });
  });

  describe('fake upstream: wire-level faults and framings', () => {
    const settled = async (what: string, check: () => boolean, ms = 5000): Promise<void> => {
      const until = Date.now() + ms;
      while (!check()) {
        if (Date.now() > until) assert.fail(`timed out waiting for: ${what}`);
        await sleep(10);
      }
    };
    const lastEntry = () => upstream.requests.at(-1)!;

    test('http10: HTTP/1.0 status line, Connection: close, no length, no chunking, the body ends with the close', async () => {
      upstream.clearLog();
      await upstream.setFault({ kind: 'http10', pathPrefix: '/files/', count: 1 });
      const res = await rawRequest(upstream.fileUrl(blob), { headers: { Connection: 'keep-alive' } });
      assert.equal(res.statusLine, 'HTTP/1.0 200 OK');
      assert.equal(res.headers.connection, 'close');
      assert.equal(res.headers['content-length'], undefined);
      assert.equal(res.headers['transfer-encoding'], undefined);
      assert.equal(res.ended, 'eof');
      assert.equal(res.body.length, blob.size, 'exactly the file, nothing of Node’s own after it');
      assert.equal(sha256Hex(res.body), blob.sha256);
      assert.equal((res.data.toString('latin1').match(/HTTP\/1\.[01] /g) ?? []).length, 1);
      assert.ok(res.arrivals[0]![1] > res.head.length + 4, 'the head leaves with the first body bytes');
      await settled('logged', () => lastEntry().durationMs !== null);
      assert.equal(lastEntry().framing, 'http10');
      assert.equal(lastEntry().status, 200);
      assert.equal(lastEntry().completed, true);
      assert.equal(lastEntry().bytesSent, blob.size);
    });

    test('http10 with contentLength (python -m http.server): Content-Length, then the close', async () => {
      await upstream.setFault({ kind: 'http10', contentLength: true, count: 1 });
      const res = await rawRequest(upstream.fileUrl(blob));
      assert.equal(res.statusLine, 'HTTP/1.0 200 OK');
      assert.equal(res.headers.connection, 'close');
      assert.equal(res.headers['content-length'], String(blob.size));
      assert.equal(res.ended, 'eof');
      assert.equal(sha256Hex(res.body), blob.sha256);
    });

    test('a request pipelined behind a raw response gets nothing: Node never writes on that socket', async () => {
      await upstream.setFault({ kind: 'http10', pathPrefix: '/simple/', count: 1 });
      const host = new URL(upstream.url).host;
      const one = (path: string) => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
      const res = await rawRequest(upstream.url, { rawRequest: `${one('/simple/fx-lib/') + one('/simple/fx-app/')}GARBAGE\r\n\r\n` });
      assert.equal(res.ended, 'eof');
      assert.equal((res.data.toString('latin1').match(/HTTP\/1\.[01] /g) ?? []).length, 1, res.data.toString('latin1').slice(-300));
      assert.ok(res.body.toString().includes('Links for fx-lib'));
      assert.ok(res.body.toString().endsWith(`<!--SERIAL ${upstream.project('fx-lib')!.serial}-->`));
    });

    test('the framing behaviour applies to every response; undici and Node read HTTP/1.0 close-delimited bodies', async () => {
      upstream.configure({ framing: 'http10' });
      const agent = new Agent({ connections: 4 });
      try {
        const bodies = await Promise.all(
          Array.from({ length: 12 }, async (_, i) => {
            const res = await request(i % 2 ? upstream.fileUrl(blob) : upstream.fileUrl(lib1), { dispatcher: agent });
            return Buffer.from(await res.body.arrayBuffer());
          }),
        );
        for (const [i, body] of bodies.entries()) assert.equal(sha256Hex(body), i % 2 ? blob.sha256 : lib1.sha256);
        const page = await get(`${upstream.url}fx-lib/`, { headers: { Accept: JSON_TYPE } });
        assert.equal(page.error, undefined);
        assert.equal(JSON.parse(page.body.toString()).name, 'fx-lib');
        const notModified = await rawRequest(`${upstream.url}fx-lib/`, { headers: { Accept: JSON_TYPE, 'If-None-Match': page.headers.etag! } });
        assert.equal(notModified.statusLine, 'HTTP/1.0 304 Not Modified');
        assert.equal(notModified.body.length, 0);
        upstream.configure({ framing: 'close' });
        const close = await rawRequest(`${upstream.url}fx-lib/`);
        assert.equal(close.statusLine, 'HTTP/1.1 200 OK');
        assert.equal(close.headers.connection, 'close');
        assert.equal(close.headers['content-length'], undefined);
        assert.equal(close.ended, 'eof');
      } finally {
        upstream.configure({ framing: 'node' });
        await agent.close();
      }
    });

    test('a truncated close-delimited body ends like a complete one; with a length it is an error', async () => {
      await upstream.setFault({ kind: 'truncate', atBytes: 1000, framing: 'http10', count: 1 });
      const cut = await rawRequest(upstream.fileUrl(blob));
      assert.equal(cut.ended, 'eof');
      assert.equal(cut.body.length, 1000);
      const viaNode = await (async () => {
        await upstream.setFault({ kind: 'truncate', atBytes: 1000, framing: 'http10', count: 1 });
        return get(upstream.fileUrl(blob));
      })();
      assert.equal(viaNode.error, undefined, 'Node sees a complete response');
      assert.equal(viaNode.body.length, 1000);
      await upstream.setFault({ kind: 'truncate', atBytes: 1000, framing: 'http10-length', count: 1 });
      const withLength = await get(upstream.fileUrl(blob));
      assert.ok(withLength.error, 'a declared length that is not reached is an error');
    });

    test('slow with bytesPerSecond is a trickle, 1 byte/s included, and stops when the client goes away', async () => {
      for (const framing of ['node', 'http10'] as const) {
        upstream.clearLog();
        await upstream.setFault({ kind: 'slow', bytesPerSecond: 1, pathPrefix: '/simple/fx-lib/', count: 1, framing });
        const res = await rawRequest(`${upstream.url}fx-lib/`, { bodyBytes: 2 });
        assert.equal(res.ended, 'limit');
        assert.match(res.statusLine, / 200 OK$/);
        const pageBytes = framing === 'node' ? Number(res.headers['content-length']) : Infinity;
        assert.ok(pageBytes > 100);
        // The first byte at once, the second a second later, in its own piece: never sooner, however busy the
        // machine (a lower bound of the throttle's own sleep), and never the page.
        assert.equal(res.body.length, 2, `${framing}: ${res.body.length} bytes`);
        assert.ok(res.ms >= 950, `${framing}: two bytes after ${res.ms} ms`);
        assert.ok(res.arrivals.length >= 2, 'bytes arrive in separate pieces');
        await settled('the trickle stops', () => upstream.delivering === 0 && !lastEntry().delivering);
        assert.ok(lastEntry().bytesSent <= 3);
        assert.equal(lastEntry().completed, false);
      }
    });

    test('hang with afterBytes 0: the head at once (with or without a length), then no byte and no close', async () => {
      const cases = [
        ['node', 'HTTP/1.1 200 OK', String(blob.size), undefined],
        ['chunked', 'HTTP/1.1 200 OK', undefined, 'chunked'],
        ['http10', 'HTTP/1.0 200 OK', undefined, undefined],
      ] as const;
      for (const [framing, statusLine, length, encoding] of cases) {
        await upstream.setFault({ kind: 'hang', afterBytes: 0, pathPrefix: '/files/', count: 1, framing });
        const res = await rawRequest(upstream.fileUrl(blob), { idleMs: 600 });
        assert.equal(res.ended, 'idle', `${framing}: the connection stays open`);
        assert.equal(res.statusLine, statusLine);
        assert.equal(res.body.length, 0, `${framing}: no body byte`);
        assert.equal(res.headers['content-length'], length);
        assert.equal(res.headers['transfer-encoding'], encoding);
        await settled('the stall ends with the client', () => upstream.delivering === 0);
      }
    });

    test('endless: 200, no length, bytes at full speed (chunked or close-delimited) until the client leaves', async () => {
      for (const framing of ['node', 'http10'] as const) {
        upstream.clearLog();
        await upstream.setFault({ kind: 'endless', pathPrefix: '/files/', count: 1, framing });
        // Unthrottled: 8 MiB arrive before rawRequest's 30 s bound (only a stall could end it as 'total').
        const res = await rawRequest(upstream.fileUrl(blob), { maxBytes: 8 * 1024 * 1024 });
        assert.equal(res.ended, 'limit');
        assert.equal(res.headers['content-length'], undefined);
        if (framing === 'node') {
          assert.equal(res.headers['transfer-encoding'], 'chunked');
          const { payload, complete } = dechunk(res.body);
          assert.equal(complete, false);
          assert.ok(payload.toString().startsWith('endless body from the fake upstream\n'));
        } else {
          assert.equal(res.statusLine, 'HTTP/1.0 200 OK');
          assert.equal(res.headers['transfer-encoding'], undefined);
        }
        await settled('the endless body stops once its client has gone', () => upstream.delivering === 0 && !lastEntry().delivering);
        assert.ok(lastEntry().bytesSent >= 7 * 1024 * 1024, `${lastEntry().bytesSent} bytes sent`);
        assert.equal(lastEntry().fault, 'endless');
      }
    });

    test('wrongLength declares more or fewer bytes than it sends, then closes (or keeps the connection)', async () => {
      await upstream.setFault({ kind: 'wrongLength', delta: 1000, count: 1 });
      const more = await rawRequest(upstream.fileUrl(blob));
      assert.equal(more.headers['content-length'], String(blob.size + 1000));
      assert.equal(more.ended, 'eof');
      assert.equal(sha256Hex(more.body), blob.sha256, 'the whole file, then the close');
      await upstream.setFault({ kind: 'wrongLength', delta: -100, count: 1 });
      const fewer = await rawRequest(upstream.fileUrl(blob));
      assert.equal(fewer.headers['content-length'], String(blob.size - 100));
      assert.equal(fewer.ended, 'eof');
      assert.equal(fewer.body.length, blob.size, 'more bytes than declared');
      await upstream.setFault({ kind: 'wrongLength', delta: 1000, count: 1 });
      const viaNode = await get(upstream.fileUrl(blob));
      assert.ok(viaNode.error, 'a client sees the response cut short');
      await upstream.setFault({ kind: 'wrongLength', delta: -100, keepOpen: true, count: 1 });
      const open = await rawRequest(upstream.fileUrl(blob), { idleMs: 400 });
      assert.equal(open.statusLine, 'HTTP/1.1 200 OK');
      assert.equal(open.headers.connection, 'keep-alive');
      assert.equal(open.headers['content-length'], String(blob.size - 100));
      assert.equal(open.body.length, blob.size);
      assert.equal(open.ended, 'idle', 'the connection stays open');
    });

    test('redirect to another origin, for pages and files; the other origin serves and logs', async () => {
      const mirror = await startFakeUpstream();
      const other = await startLoggingServer();
      try {
        mirror.addProject('fx-blob', [blob]);
        await upstream.setFault({ kind: 'redirect', to: mirror.origin, status: 307, pathPrefix: '/files/', count: 1 });
        const moved = await get(upstream.fileUrl(blob));
        assert.equal(moved.status, 307);
        assert.equal(moved.headers.location, mirror.fileUrl(blob));
        await upstream.setFault({ kind: 'redirect', to: mirror.origin, pathPrefix: '/files/', count: 1 });
        const followed = await fetch(upstream.fileUrl(blob));
        assert.equal(sha256Hex(Buffer.from(await followed.arrayBuffer())), blob.sha256);
        assert.equal(mirror.requestsTo('/files/').length, 1);
        await upstream.setFault({ kind: 'redirect', to: `${other.origin}/elsewhere/`, keepPath: false, status: 301, count: 1 });
        const page = await get(`${upstream.url}fx-lib/`);
        assert.equal(page.status, 301);
        assert.equal(page.headers.location, `${other.origin}/elsewhere/`);
        assert.equal(other.requests.length, 0, 'a redirect alone makes no request');
        assert.equal((await get(`${other.origin}/elsewhere/`)).status, 404);
        assert.deepEqual(
          other.requests.map((r) => [r.url, r.status]),
          [['/elsewhere/', 404]],
        );
        assert.equal(other.connections, 1);
      } finally {
        await upstream.setFault(null);
        await mirror.close();
        await other.close();
      }
    });

    test('fileOrigin points file URLs at another server; fileHashes false lists files with no hash and no size', async () => {
      const other = await startLoggingServer({ files: [lib1] });
      upstream.configure({ fileOrigin: other.origin, fileHashes: false });
      try {
        assert.equal(upstream.fileUrl(lib1), other.fileUrl(lib1));
        const doc = JSON.parse((await get(`${upstream.url}fx-lib/`, { headers: { Accept: JSON_TYPE } })).body.toString());
        const wheel = doc.files.find((f: { filename: string }) => f.filename === lib1.filename);
        assert.equal(wheel.url, other.fileUrl(lib1));
        assert.deepEqual(wheel.hashes, {});
        assert.equal('size' in wheel, false);
        const html = (await get(`${upstream.url}fx-lib/`)).body.toString();
        assert.ok(html.includes(`<a href="${other.fileUrl(lib1)}" data-requires-python`), html);
        assert.ok(!html.includes('#sha256='));
        const api = JSON.parse((await get(`${upstream.origin}/pypi/fx-lib/json`)).body.toString());
        const apiFile = api.urls.find((u: { filename: string }) => u.filename === lib1.filename);
        assert.equal(apiFile.url, other.fileUrl(lib1));
        assert.deepEqual(apiFile.digests, {});
        assert.equal(other.requests.length, 0, 'pages alone touch no file host');
        const file = await get(wheel.url);
        assert.equal(sha256Hex(file.body), lib1.sha256);
        assert.deepEqual((await get(`${wheel.url}.metadata`)).body, lib1.metadata);
        assert.equal((await get(other.fileUrl(lib2))).status, 404, 'files it was not given are 404');
        assert.deepEqual(
          other.requests.map((r) => r.status),
          [200, 200, 404],
        );
      } finally {
        upstream.configure({ fileOrigin: null, fileHashes: true });
        await other.close();
      }
    });
  });
});

describe('synthetic page entries', () => {
  test('a project of 2,000 synthetic files is listed with their hashes and sizes, and a repeated file name is refused', async () => {
    const upstream = await startFakeUpstream();
    try {
      const dists = syntheticReleases('fx-huge', 1000);
      upstream.addProject('fx-huge', dists);
      const doc = JSON.parse((await get(`${upstream.url}fx-huge/`, { headers: { Accept: JSON_TYPE } })).body.toString());
      assert.equal(doc.files.length, 2000);
      assert.equal(new Set(doc.files.map((f: { filename: string }) => f.filename)).size, 2000);
      assert.equal(doc.versions.length, 1000);
      const sdist = doc.files.find((f: { filename: string }) => f.filename === dists[1]!.filename);
      assert.deepEqual(sdist.hashes, { sha256: dists[1]!.sha256 });
      assert.equal(sdist.size, dists[1]!.size);
      assert.equal(sdist['core-metadata'], false, 'sdists advertise no .metadata');
      const html = (await get(`${upstream.url}fx-huge/`)).body.toString();
      assert.equal(html.split('<a ').length - 1, 2000);
      assert.throws(() => upstream.addFiles('fx-huge', [dists[1999]!]), /is already in fx-huge/);
    } finally {
      await upstream.close();
    }
  });
});
