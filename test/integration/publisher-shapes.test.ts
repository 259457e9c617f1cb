/**
 * Uploads in the request shapes of the publishers that cannot run here, built byte for byte: uv publish
 * (`crates/uv-publish/src/lib.rs` `form_metadata`: `:action` and `sha256_digest` first, `requires_python`
 * always, even empty; the file part last) and flit (`flit/upload.py`: `md5_digest`, a file part with no
 * Content-Type). And `POST /legacy` without the slash, which twine and uv send when configured so.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildSdist, buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { rawGet } from '../helpers/raw-get.js';

type Field = [string, string];

const UPLOADED_AT = '2030-01-02T03:04:05.000Z';

/** A multipart body with the parts in the order given; the file part's Content-Type only when given. */
async function multipart(fields: Field[], dist: BuiltDist, fileContentType: string | null): Promise<{ body: Buffer; contentType: string }> {
  const boundary = randomBytes(12).toString('hex');
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  const type = fileContentType ? `Content-Type: ${fileContentType}\r\n` : '';
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="content"; filename="${dist.filename}"\r\n${type}\r\n`));
  parts.push(await readFile(dist.path), Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

function uvFields(dist: BuiltDist): Field[] {
  return [
    [':action', 'file_upload'],
    ['sha256_digest', dist.sha256],
    ['protocol_version', '1'],
    ['metadata_version', '2.1'],
    ['name', dist.name],
    ['version', dist.version],
    ['filetype', dist.packagetype],
    ['pyversion', dist.pythonVersion],
    ['summary', dist.summary],
    ['requires_python', dist.requiresPython ?? ''],
  ];
}

function flitFields(dist: BuiltDist, bytes: Buffer): Field[] {
  return [
    [':action', 'file_upload'],
    ['name', dist.name],
    ['version', dist.version],
    ['summary', dist.summary],
    ['metadata_version', '2.1'],
    ['protocol_version', '1'],
    ['filetype', dist.packagetype],
    ['pyversion', dist.pythonVersion],
    ['md5_digest', createHash('md5').update(bytes).digest('hex')],
    ['sha256_digest', dist.sha256],
  ];
}

describe('uploads in the shapes of uv publish and flit, and to /legacy without a slash', () => {
  let dir: string;
  let l: TestLarder;
  const auth = basicAuth('alice', 'alice-password');

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-publishers-'));
    l = await startLarder({ upstream: null }, join(dir, 'data'), { clock: new ManualClock(Date.parse(UPLOADED_AT)) });
    await l.addUser('alice', 'alice-password', false);
  });

  after(async () => {
    await l?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const post = async (path: string, form: { body: Buffer; contentType: string }) =>
    fetch(`${l.url}${path}`, { method: 'POST', body: form.body, headers: { Authorization: auth, 'Content-Type': form.contentType }, redirect: 'manual' });

  const listed = async (name: string, filename: string) => {
    const page = await rawGet(`${l.url}/simple/${name}/`, { headers: { Accept: 'text/html' } });
    return page.status === 200 && page.body.toString('utf8').includes(filename);
  };

  test('uv publish: a wheel and an sdist with an empty requires_python', async () => {
    const wheel = await buildWheel(join(dir, 'uv-wheel'), { name: 'uv-shaped', version: '1.0', requiresPython: '>=3.8' });
    const sdist = await buildSdist(join(dir, 'uv-sdist'), { name: 'uv-shaped', version: '1.0' });
    for (const dist of [wheel, sdist]) {
      const res = await post('/legacy/', await multipart(uvFields(dist), dist, 'application/octet-stream'));
      assert.equal(res.status, 200, `${dist.filename}: ${res.statusText} ${await res.text()}`);
      assert.ok(await listed('uv-shaped', dist.filename));
    }
    const api = (await (await fetch(`${l.url}/pypi/uv-shaped/json`)).json()) as {
      info: { requires_python: string | null };
      urls: { upload_time_iso_8601: string }[];
    };
    assert.equal(api.info.requires_python, '>=3.8', "the wheel's requires_python, not the sdist's empty one");
    assert.deepEqual(
      api.urls.map((u) => u.upload_time_iso_8601),
      [UPLOADED_AT, UPLOADED_AT],
      "the upload time is the app's clock's",
    );
  });

  test('flit publish: a file part without a Content-Type is accepted, and its md5_digest is checked', async () => {
    const wheel = await buildWheel(join(dir, 'flit-wheel'), { name: 'flit_shaped', version: '0.3' });
    const bytes = await readFile(wheel.path);
    const res = await post('/legacy/', await multipart(flitFields(wheel, bytes), wheel, null));
    assert.equal(res.status, 200, `${res.statusText} ${await res.text()}`);
    assert.ok(await listed('flit-shaped', wheel.filename));

    const other = await buildWheel(join(dir, 'flit-wrong'), { name: 'flit_shaped', version: '0.4' });
    const wrong = flitFields(other, await readFile(other.path)).map(([k, v]): Field => [k, k === 'md5_digest' ? '0'.repeat(32) : v]);
    const refused = await post('/legacy/', await multipart(wrong, other, null));
    assert.equal(refused.status, 400);
    assert.match(refused.statusText, /digest/i);
  });

  test('POST /legacy (no trailing slash) uploads like /legacy/, without a redirect', async () => {
    const wheel = await buildWheel(join(dir, 'no-slash'), { name: 'no-slash', version: '2.0' });
    const res = await post('/legacy', await multipart(uvFields(wheel), wheel, 'application/octet-stream'));
    assert.equal(res.status, 200, `${res.status} ${res.statusText}`);
    assert.ok(await listed('no-slash', wheel.filename));
  });
});
