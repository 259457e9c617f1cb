/**
 * The JSON API for an upstream that has only PEP 503 HTML pages, with the blobs on the filesystem
 * (test/helpers/json-api-html-suite.ts; in S3: test/slow/json-api-html-upstream-s3.test.ts), and for a
 * large project on such an upstream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { syntheticReleases } from '../fixtures/synthetic-dists.js';
import { type ApiDoc, describeHtmlOnlyJsonApi, type FileDoc } from '../helpers/json-api-html-suite.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { rawGet } from '../helpers/raw-get.js';

describeHtmlOnlyJsonApi('the filesystem');

/**
 * A large project on an HTML-only upstream: every file of the page is looked up once in the cached-file
 * index when the JSON API document is built (issue 25: each lookup was a scan of the page, on every
 * request), and a second request, of the JSON API or of the project page, builds nothing again.
 */
describe('a 5,000-file project on an HTML-only upstream', () => {
  const FILES = 5_000;
  let up: FakeUpstream;
  let l: TestLarder;
  let lookups = 0;

  before(async () => {
    up = await startFakeUpstream({ htmlOnly: true, jsonApi: false, coreMetadata: false, fileHashes: false });
    up.addProject('big', syntheticReleases('big', FILES / 2));
    l = await startLarder({ upstream: up.url, upstreamRetries: 0 });
    // A count of the reads of the real index (the first upstream's own), which stays in place.
    const index = l.larder.storage.cachedFiles;
    const get = index.get.bind(index);
    index.get = (id) => {
      lookups++;
      return get(id);
    };
  });

  after(async () => {
    await l?.close();
    await up?.close();
  });

  test('the JSON API lists every file, one index lookup each; the second request and the project page build nothing', async () => {
    const first = await rawGet(`${l.url}/pypi/big/json`);
    assert.equal(first.status, 200);
    const doc = JSON.parse(first.body.toString('utf8')) as ApiDoc & { releases: Record<string, FileDoc[]> };
    assert.equal(Object.keys(doc.releases).length, FILES / 2);
    assert.equal(Object.values(doc.releases).flat().length, FILES);
    assert.ok(doc.urls.every((file) => file.size === null));
    // And the latest release's wheel, whose METADATA would give `info` once cached.
    assert.equal(lookups, FILES + 1);
    const second = await rawGet(`${l.url}/pypi/big/json`);
    assert.equal(second.status, 200);
    assert.equal(second.headers.etag, first.headers.etag);
    const page = await fetch(`${l.url}/project/big/`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.equal(html.match(/<li><a href="\/project\/big\/[^"]+\/"/g)?.length, FILES / 2);
    assert.equal(lookups, FILES + 1, 'no lookup after the first build');
  });
});
