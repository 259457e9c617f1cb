/**
 * `/simple/` compressed: the root list is kept gzip-compressed beside its plain form, once per list version,
 * and sent to clients that accept gzip with an ETag of its own (docs/upstream.md, "The project list").
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { buildWheel } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { PIP_ACCEPT, rawGet } from '../helpers/raw-get.js';

describe('/simple/ compressed', () => {
  let dir: string;
  let up: FakeUpstream;
  let l: TestLarder;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-root-gzip-'));
    up = await startFakeUpstream();
    for (let i = 0; i < 40; i++) up.addProject(`project-number-${i}`, [await buildWheel(join(dir, `p${i}`), { name: `project-number-${i}`, version: '1.0' })]);
    l = await startLarder({ upstream: up.url, upstreamRetries: 0 }, join(dir, 'data'));
  });

  after(async () => {
    await l?.stop();
    await up?.close();
    await rm(dir, { recursive: true, force: true });
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
    const files = (await readdir(join(dir, 'data', 'cache'))).filter((f) => f.startsWith('root-'));
    assert.deepEqual(files.map((f) => f.replace(/^root-[0-9a-f]+/, 'root')).sort(), ['root.html', 'root.html.gz', 'root.json', 'root.json.gz']);
  });
});
