/**
 * `/simple/` compressed: the root list is kept gzip-compressed beside its plain form, once per list version,
 * and sent to clients that accept gzip with an ETag of its own; while a changed list is rendered, the previous
 * rendering is sent (docs/upstream.md, "The project list").
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import { buildWheel } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { suiteUpstreamBench } from '../helpers/upstream-bench.js';
import { eventually } from '../helpers/eventually.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { PIP_ACCEPT, rawGet } from '../helpers/raw-get.js';

describe('/simple/ compressed', () => {
  const bench = suiteUpstreamBench('larder-root-gzip-', { upstreamRetries: 0 });
  let dir: string;
  let up: FakeUpstream;
  let l: TestLarder;

  before(async () => {
    ({ dir, up } = bench);
    for (let i = 0; i < 40; i++) up.addProject(`project-number-${i}`, [await buildWheel(join(dir, `p${i}`), { name: `project-number-${i}`, version: '1.0' })]);
    l = await bench.larder();
  });

  for (const [format, accept] of [
    ['HTML', 'text/html'],
    ['JSON', PIP_ACCEPT],
  ] as const) {
    test(`${format}: gzip for a client that accepts it, the same list when decoded, its own ETag and Content-Length`, async () => {
      const plain = await rawGet(`${l.url}/simple/`, { headers: { Accept: accept } });
      const zipped = await rawGet(`${l.url}/simple/`, { headers: { Accept: accept, 'Accept-Encoding': 'gzip, br' } });
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.match(plain.body.toString('utf8'), /project-number-39/);
      assert.equal(zipped.status, 200);
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.equal(Number(zipped.headers['content-length']), zipped.body.length);
      assert.ok(zipped.body.length < plain.body.length / 3, `${zipped.body.length} compressed bytes for ${plain.body.length}`);
      assert.ok(gunzipSync(zipped.body).equals(plain.body), 'the gzip body decodes to the plain list');
      assert.notEqual(zipped.headers.etag, plain.headers.etag);
      assert.match(String(zipped.headers.vary), /Accept-Encoding/);

      const again = await rawGet(`${l.url}/simple/`, { headers: { Accept: accept, 'Accept-Encoding': 'gzip', 'If-None-Match': String(zipped.headers.etag) } });
      assert.equal(again.status, 304);
      const refused = await rawGet(`${l.url}/simple/`, { headers: { Accept: accept, 'Accept-Encoding': 'gzip;q=0, identity' } });
      assert.equal(refused.headers['content-encoding'], undefined, 'gzip;q=0 is a refusal');
      assert.ok(refused.body.equals(plain.body));
      const head = await rawGet(`${l.url}/simple/`, { method: 'HEAD', headers: { Accept: accept, 'Accept-Encoding': 'gzip' } });
      assert.equal(head.headers['content-encoding'], 'gzip');
      assert.equal(head.headers['content-length'], zipped.headers['content-length']);
    });
  }

  test('each form is compressed once per list version: one plain and one gzip file per format on disk', async () => {
    await rawGet(`${l.url}/simple/`, { headers: { Accept: 'text/html', 'Accept-Encoding': 'gzip' } });
    const files = (await readdir(join(l.data, 'cache'))).filter((f) => f.startsWith('root-'));
    assert.deepEqual(files.map((f) => f.replace(/^root-[0-9a-f]+/, 'root')).sort(), [
      'root.html',
      'root.html.gz',
      'root.html.version',
      'root.json',
      'root.json.gz',
      'root.json.version',
    ]);
  });

  test('an unchanged list: a refresh the upstream answers 304 keeps the same rendering, its ETag and its files', async () => {
    const clock = new ManualClock(Date.now());
    const larder = await startLarder({ upstream: up.url, upstreamRetries: 0, rootTtl: 60_000 }, join(dir, 'data-unchanged'), { clock });
    const get = () => rawGet(`${larder.url}/simple/`, { headers: { Accept: 'text/html', 'Accept-Encoding': 'gzip' } });
    const rootFetches = () => up.requests.filter((r) => r.path === '/simple/').length;
    const renderings = async () => (await readdir(join(larder.data, 'cache'))).filter((f) => f.startsWith('root-')).sort();
    try {
      const first = await get();
      const files = await renderings();
      const fetched = rootFetches();
      clock.advance(61_000);
      await get();
      await eventually(async () => larder.larder.storage.documents.getRootList()?.fetchedAt === clock.now(), 'the refresh is recorded');
      assert.equal(up.requests.filter((r) => r.path === '/simple/').at(-1)?.status, 304, 'the upstream answered the refresh 304');
      assert.ok(rootFetches() > fetched);
      const conditional = await rawGet(`${larder.url}/simple/`, {
        headers: { Accept: 'text/html', 'Accept-Encoding': 'gzip', 'If-None-Match': String(first.headers.etag) },
      });
      assert.equal(conditional.status, 304, 'the list is the same version');
      const after = await get();
      assert.equal(after.headers.etag, first.headers.etag);
      assert.deepEqual(await renderings(), files, 'no new rendering');
    } finally {
      await larder.stop();
    }
  });

  test('a changed list: the previous rendering is sent at once (its own ETag and serial) while the new one is made, then the new one', async () => {
    const clock = new ManualClock(Date.now());
    // Large enough that rendering takes a while: the request must not wait for it.
    const big = await startFakeUpstream({ rootProjects: 100_000 });
    const larder = await startLarder({ upstream: big.url, upstreamRetries: 0, rootTtl: 60_000, staleWait: 30_000 }, join(dir, 'data-changing'), { clock });
    const get = () => rawGet(`${larder.url}/simple/`, { headers: { Accept: 'text/html', 'Accept-Encoding': 'gzip' } });
    const text = (res: { body: Buffer }) => gunzipSync(res.body).toString('utf8');
    try {
      const first = await get();
      assert.equal(first.status, 200);
      assert.doesNotMatch(text(first), /brand-new-project/);
      big.addProject('brand-new-project', [await buildWheel(join(dir, 'new'), { name: 'brand-new-project', version: '1.0' })]);
      clock.advance(61_000);

      const during = await get();
      assert.equal(during.status, 200);
      assert.equal(during.headers.etag, first.headers.etag, 'the previous rendering, not a wait for the new one');
      assert.equal(during.headers['x-pypi-last-serial'], first.headers['x-pypi-last-serial']);
      assert.ok(gunzipSync(during.body).equals(gunzipSync(first.body)));
      const notModified = await rawGet(`${larder.url}/simple/`, {
        headers: { Accept: 'text/html', 'Accept-Encoding': 'gzip', 'If-None-Match': String(first.headers.etag) },
      });
      assert.ok(
        notModified.status === 304 || text(notModified).includes('brand-new-project'),
        'the previous ETag is still current until the new page is ready',
      );

      let latest = during;
      await eventually(async () => {
        latest = await get();
        return text(latest).includes('brand-new-project');
      }, 'the new rendering replaces the previous one');
      assert.notEqual(latest.headers.etag, first.headers.etag);
    } finally {
      await larder.stop();
      await big.close();
    }
  });
});
