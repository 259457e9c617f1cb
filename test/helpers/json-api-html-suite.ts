/**
 * The JSON API for an upstream that has only PEP 503 HTML pages, no sizes, no digests and no `.metadata`
 * files (a plain mirror, a directory behind a web server): before anything is cached, what larder cannot
 * know is null; once the wheel is cached, `info` comes from the METADATA inside it and `urls[]` carry its
 * size and sha256 (docs/index-api.md, "The JSON API"). Run with the blobs on the filesystem
 * (test/integration/json-api-html-upstream.test.ts) and in S3 (test/slow/json-api-html-upstream-s3.test.ts),
 * where the wheel's METADATA is read from the bucket by ranges.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { eventually } from './eventually.js';
import { startLarder, type TestLarder } from './larder.js';
import { rawGet } from './raw-get.js';
import { exportTestCredentials, type TestS3Server } from './s3-server.js';

export interface FileDoc {
  filename: string;
  size: number | null;
  digests: Record<string, string | null>;
  md5_digest: string | null;
  upload_time: string | null;
}
export interface ApiDoc {
  info: { name: string; version: string; summary: string; requires_python: string | null; requires_dist: string[] | null };
  urls: FileDoc[];
}

/** The suite with the blobs on `blobs`: the filesystem, or S3 when `startS3` starts one. */
export function describeHtmlOnlyJsonApi(blobs: string, startS3?: () => Promise<TestS3Server>): void {
  describe(`JSON API for an HTML-only upstream, blobs on ${blobs}`, () => {
    let dir: string;
    let up: FakeUpstream;
    let l: TestLarder;
    let wheel: BuiltDist;
    let s3: TestS3Server | undefined;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'larder-json-html-'));
      wheel = await buildWheel(join(dir, 'w'), {
        name: 'Plain_Mirror',
        version: '1.2',
        summary: 'Served by a plain web server',
        requiresPython: '>=3.9',
        requiresDist: ['tinydep>=1'],
      });
      up = await startFakeUpstream({ htmlOnly: true, jsonApi: false, coreMetadata: false, fileHashes: false });
      up.addProject('plain-mirror', [wheel]);
      let backend = {};
      if (startS3) {
        s3 = await startS3();
        exportTestCredentials();
        backend = { blobStore: `s3://${await s3.createBucket()}/larder`, s3Endpoint: s3.endpoint, s3Region: s3.credentials.region };
      }
      l = await startLarder({ upstream: up.url, upstreamRetries: 0, ...backend }, join(dir, 'data'));
    });

    after(async () => {
      await l?.stop();
      await s3?.close();
      await up?.close();
      await rm(dir, { recursive: true, force: true });
    });

    const api = async () => JSON.parse((await rawGet(`${l.url}/pypi/plain-mirror/json`)).body.toString('utf8')) as ApiDoc;

    test('before the wheel is cached: unknowns are null, never 0 or an empty digest', async () => {
      const doc = await api();
      assert.equal(doc.info.version, '1.2');
      const [file] = doc.urls;
      assert.equal(file!.filename, wheel.filename);
      assert.equal(file!.size, null);
      assert.deepEqual(file!.digests, { blake2b_256: null, md5: null, sha256: null });
      assert.equal(file!.md5_digest, null);
      assert.equal(file!.upload_time, null);
    });

    test("once the wheel is cached: size and sha256 from the verified file, info from the wheel's METADATA", async () => {
      const got = await rawGet(`${l.url}/packages/plain-mirror/${wheel.filename}`);
      assert.equal(got.status, 200);
      await eventually(
        async () => (await rawGet(`${l.url}/packages/plain-mirror/${wheel.filename}`, { method: 'HEAD' })).headers['x-larder-cache'] === 'hit',
        'cached',
      );
      const doc = await api();
      const [file] = doc.urls;
      assert.equal(file!.size, wheel.size);
      assert.equal(file!.digests.sha256, wheel.sha256);
      assert.equal(file!.digests.md5, null, 'a digest larder did not compute stays null');
      assert.equal(doc.info.summary, 'Served by a plain web server');
      assert.equal(doc.info.requires_python, '>=3.9');
      assert.deepEqual(doc.info.requires_dist, ['tinydep>=1']);
      assert.equal(doc.info.name, 'Plain_Mirror');
    });
  });
}
