/**
 * The caching proxy's index pages, against a real fake upstream whose request log is the witness:
 * miss → hit → revalidated (conditional request, 304 refreshes), HTML-only upstreams, file links pointing
 * at larder, yanks after the TTL and upstream values passed through (docs/upstream.md, "What the upstream's
 * pages become"), negative caching,
 * single flight, serials that never go down, the JSON API (proxied or built), gzip.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { Settings } from '../../src/config/schema.js';
import { buildSdist, buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream, type LoggedRequest } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { PIP_ACCEPT, rawGet, type Got } from '../helpers/raw-get.js';

const SIMPLE_JSON = 'application/vnd.pypi.simple.v1+json';

const get = (url: string, headers: Record<string, string> = {}, timeoutMs = 15_000) => rawGet(url, { headers, timeoutMs });

interface SimpleFile {
  filename: string;
  /** Resolved against the page's URL, as installers do. */
  url: string;
  /** As the page has it: relative to the page (no LARDER_PUBLIC_URL). */
  rawUrl: string;
  hashes: Record<string, string>;
  size?: number;
  'upload-time'?: string;
  'requires-python': string | null;
  yanked: boolean | string;
  'core-metadata': false | true | Record<string, string>;
}
interface SimpleDoc {
  meta: { 'api-version': string; '_last-serial'?: number };
  name: string;
  files: SimpleFile[];
  versions: string[];
}

async function getJsonPage(base: string, project: string): Promise<{ got: Got; doc: SimpleDoc }> {
  const url = `${base}/simple/${project}/`;
  const got = await get(url, { Accept: PIP_ACCEPT });
  assert.equal(got.status, 200, `GET /simple/${project}/: ${got.status} ${got.body.toString()}`);
  assert.equal(got.headers['content-type'], SIMPLE_JSON);
  const doc = JSON.parse(got.body.toString('utf8')) as SimpleDoc;
  for (const f of doc.files) Object.assign(f, { rawUrl: f.url, url: new URL(f.url, url).href });
  return { got, doc };
}

async function getHtmlPage(base: string, project: string): Promise<{ got: Got; html: string; url: string }> {
  const url = `${base}/simple/${project}/`;
  const got = await get(url, { Accept: 'text/html' });
  assert.equal(got.status, 200, `GET /simple/${project}/ as HTML: ${got.status} ${got.body.toString()}`);
  assert.match(String(got.headers['content-type']), /^text\/html/);
  return { got, html: got.body.toString('utf8'), url };
}

/** Anchors of an HTML page: href (resolved against the page's URL, as installers do, and as written) and the raw attribute text. */
function anchors(html: string, pageUrl: string): { href: string; rawHref: string; text: string; attrs: string }[] {
  return [...html.matchAll(/<a ([^>]*)>([^<]*)<\/a>/g)].map((m) => {
    const rawHref = /href="([^"]*)"/.exec(m[1]!)![1]!.replace(/&amp;/g, '&');
    return { href: new URL(rawHref, pageUrl).href, rawHref, text: m[2]!, attrs: m[1]! };
  });
}

const cacheState = (got: Got) => got.headers['x-larder-cache'];
const pageRequests = (up: FakeUpstream, project: string): LoggedRequest[] => up.requestsTo(`/simple/${project}/`);

describe('caching proxy: index pages', () => {
  let dir: string;
  let up: FakeUpstream;
  let appdep: BuiltDist;
  let appdepSdist: BuiltDist;
  let app: BuiltDist;
  let app2: BuiltDist;
  let yanky1: BuiltDist;
  let yanky2: BuiltDist;
  const larders: TestLarder[] = [];
  const upstreams: FakeUpstream[] = [];

  const larder = async (overrides: Partial<Settings> = {}, upstream: FakeUpstream = up, clock?: ManualClock): Promise<TestLarder> => {
    const l = await startLarder({ upstream: upstream.url, upstreamRetries: 0, upstreamHeadersTimeout: 2000, ...overrides }, undefined, { clock });
    larders.push(l);
    return l;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-proxy-pages-'));
    appdep = await buildWheel(dir, { name: 'appdep', version: '1.0', requiresPython: '>=3.8', summary: 'the dependency' });
    appdepSdist = await buildSdist(dir, { name: 'appdep', version: '1.0', requiresPython: '>=3.8' });
    app = await buildWheel(dir, { name: 'app', version: '1.0', requiresDist: ['appdep'], summary: 'the app' });
    app2 = await buildWheel(dir, { name: 'app', version: '2.0', requiresDist: ['appdep>=1.0'], summary: 'the app, again', requiresPython: '>=3.8,<4' });
    yanky1 = await buildWheel(dir, { name: 'yanky', version: '1.0' });
    yanky2 = await buildWheel(dir, { name: 'yanky', version: '2.0' });
    up = await startFakeUpstream();
    upstreams.push(up);
    up.addProject('appdep', [appdep, appdepSdist], { uploadTime: new Date(Date.UTC(2024, 4, 1, 10, 20, 30, 456)) });
    up.addProject('App', [app, app2]);
    up.addProject('yanky', [yanky1, yanky2]);
  });

  after(async () => {
    for (const l of larders) await l.close();
    for (const u of upstreams) await u.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('miss → hit → revalidated with If-None-Match/If-Modified-Since; a 304 refreshes the entry', async () => {
    const clock = new ManualClock(Date.now());
    const l = await larder({ pageTtl: 1000 }, up, clock);
    up.clearLog();
    const first = await getJsonPage(l.url, 'appdep');
    assert.equal(cacheState(first.got), 'miss');
    assert.equal(pageRequests(up, 'appdep').length, 1);
    const firstUpstream = pageRequests(up, 'appdep')[0]!;
    assert.equal(firstUpstream.headers['if-none-match'], undefined, 'a miss is not a conditional request');

    const second = await getJsonPage(l.url, 'appdep');
    assert.equal(cacheState(second.got), 'hit');
    assert.equal(pageRequests(up, 'appdep').length, 1, 'a fresh hit never reaches the upstream');
    assert.deepEqual(second.doc, first.doc);

    clock.advance(1200);
    const third = await getJsonPage(l.url, 'appdep');
    assert.equal(cacheState(third.got), 'revalidated');
    const log = pageRequests(up, 'appdep');
    assert.equal(log.length, 2);
    const conditional = log[1]!;
    assert.ok(conditional.headers['if-none-match'], 'revalidation sends If-None-Match');
    assert.ok(conditional.headers['if-modified-since'], 'revalidation sends If-Modified-Since');
    assert.equal(conditional.status, 304, 'the upstream answered 304');
    assert.deepEqual(third.doc, first.doc);

    // The 304 refreshed the entry: fresh again, no upstream request.
    const fourth = await getJsonPage(l.url, 'appdep');
    assert.equal(cacheState(fourth.got), 'hit');
    assert.equal(pageRequests(up, 'appdep').length, 2);
  });

  test('a changed upstream page after the TTL is fetched again (200) and served as revalidated', async () => {
    const clock = new ManualClock(Date.now());
    const l = await larder({ pageTtl: 800 }, up, clock);
    const proj = await buildWheel(dir, { name: 'changing', version: '1.0' });
    const proj2 = await buildWheel(dir, { name: 'changing', version: '1.1' });
    up.addProject('changing', [proj]);
    const first = await getJsonPage(l.url, 'changing');
    assert.deepEqual(first.doc.versions, ['1.0']);
    up.addFiles('changing', [proj2]);
    clock.advance(1000);
    up.clearLog();
    const second = await getJsonPage(l.url, 'changing');
    assert.equal(cacheState(second.got), 'revalidated');
    assert.equal(pageRequests(up, 'changing')[0]?.status, 200);
    assert.deepEqual(second.doc.files.map((f) => f.filename).sort(), [proj.filename, proj2.filename].sort());
  });

  test('every file URL in larder pages points at larder (HTML, JSON, JSON API)', async () => {
    const l = await larder();
    const { doc } = await getJsonPage(l.url, 'app');
    assert.equal(doc.files.length, 2);
    for (const f of doc.files) {
      assert.ok(f.rawUrl.startsWith('../../packages/app/'), `JSON url ${f.rawUrl} is relative to the page`);
      assert.ok(f.url.startsWith(`${l.url}/packages/app/`), `JSON url ${f.url} is larder's`);
      assert.ok(!f.url.includes(up.origin));
    }
    const { html, url } = await getHtmlPage(l.url, 'app');
    const links = anchors(html, url);
    assert.equal(links.length, 2);
    for (const a of links) {
      assert.ok(a.rawHref.startsWith(`../../packages/app/${a.text}#sha256=`), `HTML href ${a.rawHref} is relative to the page`);
      assert.ok(a.href.startsWith(`${l.url}/packages/app/${a.text}#sha256=`), `HTML href ${a.href} is larder's`);
    }
    const api = await get(`${l.url}/pypi/app/json`);
    assert.equal(api.status, 200);
    const doc2 = JSON.parse(api.body.toString()) as { urls: { url: string }[]; releases: Record<string, { url: string }[]> };
    const urls = [...doc2.urls, ...Object.values(doc2.releases).flat()].map((u) => u.url);
    assert.ok(urls.length >= 3);
    for (const u of urls) assert.ok(u.startsWith(`${l.url}/packages/app/`), `JSON API url ${u} is larder's`);
    assert.ok(!api.body.toString().includes(`${up.origin}/files/`), 'no upstream file URL leaks into the JSON API');

    // And the links work: the bytes behind them are the upstream's.
    const file = await get(doc.files.find((f) => f.filename === app.filename)!.url);
    assert.equal(file.status, 200);
    assert.equal(sha256Hex(file.body), app.sha256);
  });

  test('hashes, size, upload-time, requires-python, core-metadata and .metadata bytes equal the upstream values', async () => {
    const l = await larder();
    const theirs = JSON.parse((await get(`${up.url}appdep/`, { Accept: SIMPLE_JSON })).body.toString()) as SimpleDoc;
    const { doc: ours } = await getJsonPage(l.url, 'appdep');
    assert.equal(ours.files.length, theirs.files.length);
    for (const t of theirs.files) {
      const o = ours.files.find((f) => f.filename === t.filename);
      assert.ok(o, `${t.filename} listed`);
      assert.deepEqual(o.hashes, t.hashes, `${t.filename} hashes`);
      assert.equal(o.size, t.size, `${t.filename} size`);
      assert.equal(o['upload-time'], t['upload-time'], `${t.filename} upload-time`);
      assert.equal(o['requires-python'], t['requires-python'], `${t.filename} requires-python`);
      assert.deepEqual(o['core-metadata'], t['core-metadata'], `${t.filename} core-metadata`);
    }
    assert.deepEqual(ours.versions, theirs.versions);
    // The `.metadata` bytes are the upstream's, byte for byte, and match the advertised hash.
    const wheelEntry = ours.files.find((f) => f.filename === appdep.filename)!;
    const md = await get(`${wheelEntry.url}.metadata`);
    assert.equal(md.status, 200);
    assert.ok(md.body.equals(appdep.metadata));
    assert.equal(sha256Hex(md.body), (wheelEntry['core-metadata'] as Record<string, string>).sha256);
    // The HTML form carries the same values.
    const { html, url } = await getHtmlPage(l.url, 'appdep');
    const a = anchors(html, url).find((x) => x.text === appdep.filename)!;
    assert.ok(a.href.endsWith(`#sha256=${appdep.sha256}`));
    assert.match(a.attrs, /data-requires-python="&gt;=3.8"/);
    assert.match(a.attrs, new RegExp(`data-core-metadata="sha256=${appdep.metadataSha256}"`));
    assert.match(a.attrs, new RegExp(`data-dist-info-metadata="sha256=${appdep.metadataSha256}"`));
    const s = anchors(html, url).find((x) => x.text === appdepSdist.filename)!;
    assert.doesNotMatch(s.attrs, /data-core-metadata|data-dist-info-metadata/);
  });

  test('an upstream yank shows in HTML (data-yanked), JSON and the JSON API after the TTL', async () => {
    const clock = new ManualClock(Date.now());
    const l = await larder({ pageTtl: 800 }, up, clock);
    const before = await getJsonPage(l.url, 'yanky');
    assert.ok(before.doc.files.every((f) => f.yanked === false));
    const apiBefore = JSON.parse((await get(`${l.url}/pypi/yanky/json`)).body.toString()) as { info: { version: string } };
    assert.equal(apiBefore.info.version, '2.0');

    up.yankRelease('yanky', '2.0', 'broken build');
    up.yank('yanky', yanky1.filename);
    clock.advance(1000);

    const { doc } = await getJsonPage(l.url, 'yanky');
    const y2 = doc.files.find((f) => f.filename === yanky2.filename)!;
    const y1 = doc.files.find((f) => f.filename === yanky1.filename)!;
    assert.equal(y2.yanked, 'broken build');
    assert.equal(y1.yanked, true);

    const { html, url } = await getHtmlPage(l.url, 'yanky');
    const a2 = anchors(html, url).find((x) => x.text === yanky2.filename)!;
    const a1 = anchors(html, url).find((x) => x.text === yanky1.filename)!;
    assert.match(a2.attrs, /data-yanked="broken build"/);
    assert.match(a1.attrs, /data-yanked=""/);

    const api = await get(`${l.url}/pypi/yanky/json`);
    assert.equal(api.status, 200);
    const apiDoc = JSON.parse(api.body.toString()) as {
      releases: Record<string, { yanked: boolean; yanked_reason: string | null }[]>;
    };
    assert.equal(apiDoc.releases['2.0']![0]!.yanked, true);
    assert.equal(apiDoc.releases['2.0']![0]!.yanked_reason, 'broken build');
    assert.equal(apiDoc.releases['1.0']![0]!.yanked, true);
  });

  test('an upstream 404 is remembered for notFoundTtl: one upstream request for two lookups', async () => {
    const clock = new ManualClock(Date.now());
    const l = await larder({ notFoundTtl: 1000 }, up, clock);
    up.clearLog();
    const a = await get(`${l.url}/simple/no-such-project/`);
    assert.equal(a.status, 404);
    assert.equal(a.body.toString(), '404 Not Found');
    const b = await get(`${l.url}/simple/no-such-project/`, { Accept: PIP_ACCEPT });
    assert.equal(b.status, 404);
    assert.equal(cacheState(b), 'hit');
    assert.equal(pageRequests(up, 'no-such-project').length, 1);
    // Files of an unknown project do not ask again either.
    const f = await get(`${l.url}/packages/no-such-project/no_such_project-1.0-py3-none-any.whl`);
    assert.equal(f.status, 404);
    assert.equal(pageRequests(up, 'no-such-project').length, 1);
    assert.equal(up.requestsTo('/files/').length, 0);

    // After notFoundTtl the upstream is asked again, and a project that appeared meanwhile is found.
    const late = await buildWheel(dir, { name: 'no-such-project', version: '1.0' });
    up.addProject('no-such-project', [late]);
    clock.advance(1200);
    const c = await get(`${l.url}/simple/no-such-project/`, { Accept: PIP_ACCEPT });
    assert.equal(c.status, 200);
    assert.equal(pageRequests(up, 'no-such-project').length, 2);
  });

  test('20 concurrent requests for an uncached page → 1 upstream request', async () => {
    const l = await larder();
    const name = 'popular';
    const w = await buildWheel(dir, { name, version: '1.0' });
    up.addProject(name, [w]);
    // Slow the page a little so all 20 arrive while the first fetch is in flight.
    await up.setFault({ kind: 'slow', delayMs: 300, pathPrefix: `/simple/${name}/`, count: 1 });
    up.clearLog();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => get(`${l.url}/simple/${name}/`, { Accept: i % 2 ? PIP_ACCEPT : 'text/html' })));
    for (const got of answers) assert.equal(got.status, 200);
    assert.equal(pageRequests(up, name).length, 1);
    const states = answers.map(cacheState);
    assert.ok(
      states.every((s) => s === 'miss' || s === 'hit'),
      `states: ${states.join(',')}`,
    );
    const json = answers.filter((_, i) => i % 2).map((g) => JSON.parse(g.body.toString()) as SimpleDoc);
    for (const doc of json) assert.equal(doc.files[0]!.hashes.sha256, w.sha256);
    await up.setFault(null);
  });

  test("X-PyPI-Last-Serial is the upstream's serial and never decreases", async () => {
    const clock = new ManualClock(Date.now());
    const l = await larder({ pageTtl: 600 }, up, clock);
    const name = 'serialized';
    up.addProject(name, [await buildWheel(dir, { name, version: '1.0' })], { serial: 5000 });
    const serialOf = async () => {
      const json = await getJsonPage(l.url, name);
      const html = await getHtmlPage(l.url, name);
      const header = Number(json.got.headers['x-pypi-last-serial']);
      assert.equal(Number(html.got.headers['x-pypi-last-serial']), header);
      assert.equal(json.doc.meta['_last-serial'], header);
      assert.match(html.html, new RegExp(`<!--SERIAL ${header}-->`));
      return header;
    };
    assert.equal(await serialOf(), 5000);

    up.touch(name, 6000);
    clock.advance(800);
    assert.equal(await serialOf(), 6000, 'a higher upstream serial is passed on after the TTL');

    // The upstream goes backwards (a lagging mirror behind a load balancer, say): larder does not.
    up.touch(name, 5500);
    clock.advance(800);
    up.clearLog();
    const after = await serialOf();
    assert.ok(pageRequests(up, name).length >= 1, 'the lower page was fetched');
    assert.ok(pageRequests(up, name).every((r) => r.status === 200));
    assert.equal(after, 6000, 'the serial never decreases');

    const api = await get(`${l.url}/pypi/${name}/json`);
    assert.ok(Number(api.headers['x-pypi-last-serial']) >= 5500);
  });

  test('JSON API proxied from the upstream JSON API, with larder URLs and cache states', async () => {
    const l = await larder();
    up.clearLog();
    const first = await get(`${l.url}/pypi/app/json`);
    assert.equal(first.status, 200, first.body.toString());
    assert.equal(cacheState(first), 'miss');
    assert.equal(up.requestsTo('/pypi/app/json').length, 1, 'the upstream JSON API was asked');
    const doc = JSON.parse(first.body.toString()) as {
      info: { name: string; version: string; summary: string; requires_dist: string[] | null; requires_python: string | null };
      releases: Record<string, { filename: string; digests: { sha256: string } }[]>;
      urls: { filename: string; url: string; digests: { sha256: string; md5: string; blake2b_256: string }; size: number }[];
      last_serial: number;
    };
    const theirs = JSON.parse((await get(`${up.origin}/pypi/app/json`)).body.toString()) as typeof doc;
    assert.equal(doc.info.version, '2.0');
    assert.equal(doc.info.summary, theirs.info.summary);
    assert.deepEqual(doc.info.requires_dist, theirs.info.requires_dist);
    assert.equal(doc.info.requires_python, '>=3.8,<4');
    assert.deepEqual(Object.keys(doc.releases).sort(), ['1.0', '2.0']);
    assert.deepEqual(doc.urls[0]!.digests, theirs.urls[0]!.digests);
    assert.equal(doc.urls[0]!.size, app2.size);
    assert.equal(Number(first.headers['x-pypi-last-serial']), up.project('app')!.serial);

    const again = await get(`${l.url}/pypi/app/json`);
    assert.equal(cacheState(again), 'hit');
    assert.equal(up.requestsTo('/pypi/app/json').length, 2, 'only the test itself asked once more');

    const release = await get(`${l.url}/pypi/app/1.0/json`);
    assert.equal(release.status, 200);
    const rel = JSON.parse(release.body.toString()) as { info: { version: string }; urls: { filename: string }[] };
    assert.equal(rel.info.version, '1.0');
    assert.deepEqual(
      rel.urls.map((u) => u.filename),
      [app.filename],
    );

    const missing = await get(`${l.url}/pypi/nothing-here/json`);
    assert.equal(missing.status, 404);
    assert.deepEqual(JSON.parse(missing.body.toString()), { message: 'Not Found' });
  });

  test("JSON API: /pypi/<p>/<v>/json of an older release carries that release's metadata (upstream /pypi/<p>/<v>/json or its .metadata)", async () => {
    const l = await larder();
    const release = await get(`${l.url}/pypi/app/1.0/json`);
    assert.equal(release.status, 200);
    const rel = JSON.parse(release.body.toString()) as { info: { version: string; summary: string; requires_dist: string[] | null } };
    assert.equal(rel.info.version, '1.0');
    assert.equal(rel.info.summary, 'the app');
    assert.deepEqual(rel.info.requires_dist, ['appdep']);

    const noApi = await startFakeUpstream({ jsonApi: false });
    upstreams.push(noApi);
    noApi.addProject('App', [app, app2]);
    const built = await larder({ upstreamJsonApi: null }, noApi);
    const old = await get(`${built.url}/pypi/app/1.0/json`);
    assert.equal(old.status, 200, old.body.toString());
    const fromMetadata = JSON.parse(old.body.toString()) as { info: { version: string; summary: string; requires_dist: string[] | null } };
    assert.equal(fromMetadata.info.summary, 'the app');
    assert.deepEqual(fromMetadata.info.requires_dist, ['appdep']);
  });

  test('JSON API built from the simple page and .metadata when the upstream has no JSON API', async () => {
    const noApi = await startFakeUpstream({ jsonApi: false });
    upstreams.push(noApi);
    noApi.addProject('App', [app, app2]);
    const l = await larder({ upstreamJsonApi: null }, noApi);
    const got = await get(`${l.url}/pypi/app/json`);
    assert.equal(got.status, 200, got.body.toString());
    assert.equal(noApi.requestsTo('/pypi/').length, 0, 'no JSON API request when the upstream has none');
    assert.equal(noApi.requestsTo('/simple/app/').length, 1);
    assert.equal(noApi.requestsTo(`/files/`).filter((r) => r.path.endsWith(`${app2.filename}.metadata`)).length, 1);
    const doc = JSON.parse(got.body.toString()) as {
      info: { name: string; version: string; summary: string; requires_dist: string[] | null; requires_python: string | null };
      releases: Record<string, { filename: string; url: string; digests: { sha256: string } }[]>;
      urls: { filename: string; url: string }[];
    };
    assert.equal(doc.info.version, '2.0');
    assert.equal(doc.info.summary, 'the app, again');
    assert.deepEqual(doc.info.requires_dist, ['appdep>=1.0']);
    assert.equal(doc.info.requires_python, '>=3.8,<4');
    assert.deepEqual(Object.keys(doc.releases).sort(), ['1.0', '2.0']);
    assert.equal(doc.releases['1.0']![0]!.digests.sha256, app.sha256);
    for (const u of [...doc.urls, ...Object.values(doc.releases).flat()]) {
      assert.ok(u.url.startsWith(`${l.url}/packages/app/`), u.url);
    }
    // The .metadata it read was verified and kept: serving it again does not touch the upstream.
    const before = noApi.requests.length;
    const md = await get(`${l.url}/packages/app/${app2.filename}.metadata`);
    assert.equal(md.status, 200);
    assert.ok(md.body.equals(app2.metadata));
    assert.equal(noApi.requests.length, before);
  });

  test('HTML-only (PEP 503) upstream with relative links: parsed, served as JSON and HTML, files work', async () => {
    const htmlUp = await startFakeUpstream({ htmlOnly: true, jsonApi: false, relativeUrls: true });
    upstreams.push(htmlUp);
    htmlUp.addProject('appdep', [appdep, appdepSdist]);
    const l = await larder({ upstreamJsonApi: null }, htmlUp);
    const { doc } = await getJsonPage(l.url, 'appdep');
    const upstreamPage = htmlUp.requestsTo('/simple/appdep/')[0]!;
    assert.equal(upstreamPage.status, 200);
    assert.deepEqual(doc.files.map((f) => f.filename).sort(), [appdep.filename, appdepSdist.filename].sort());
    const w = doc.files.find((f) => f.filename === appdep.filename)!;
    assert.equal(w.hashes.sha256, appdep.sha256);
    assert.equal(w['requires-python'], '>=3.8');
    assert.deepEqual(w['core-metadata'], { sha256: appdep.metadataSha256 });
    assert.ok(w.url.startsWith(`${l.url}/packages/appdep/`));
    assert.deepEqual(doc.versions, ['1.0']);

    const { html, url } = await getHtmlPage(l.url, 'appdep');
    const links = anchors(html, url);
    assert.equal(links.length, 2);
    for (const a of links) assert.ok(a.href.startsWith(`${l.url}/packages/appdep/${a.text}#sha256=`), a.href);

    // The relative upstream link was resolved against the page URL: the download works.
    const file = await get(w.url);
    assert.equal(file.status, 200);
    assert.equal(sha256Hex(file.body), appdep.sha256);
    assert.equal(htmlUp.requestsTo('/files/').filter((r) => r.path.endsWith(appdep.filename)).length, 1);
  });

  test('gzip: Accept-Encoding: gzip gives a gzip body that decodes to the same page', async () => {
    const l = await larder();
    for (const accept of [PIP_ACCEPT, 'text/html']) {
      const plain = await get(`${l.url}/simple/app/`, { Accept: accept, 'Accept-Encoding': 'identity' });
      const zipped = await get(`${l.url}/simple/app/`, { Accept: accept, 'Accept-Encoding': 'gzip, deflate' });
      assert.equal(plain.status, 200);
      assert.equal(zipped.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.match(String(zipped.headers.vary), /Accept-Encoding/i);
      assert.notEqual(zipped.headers.etag, plain.headers.etag, 'the gzip form has its own ETag');
      assert.ok(gunzipSync(zipped.body).equals(plain.body), `gzip body decodes to the same ${accept} page`);
      assert.equal(zipped.headers['x-pypi-last-serial'], plain.headers['x-pypi-last-serial']);
    }
    const apiPlain = await get(`${l.url}/pypi/app/json`);
    const apiZipped = await get(`${l.url}/pypi/app/json`, { 'Accept-Encoding': 'gzip' });
    assert.equal(apiZipped.headers['content-encoding'], 'gzip');
    assert.ok(gunzipSync(apiZipped.body).equals(apiPlain.body));
  });
});
