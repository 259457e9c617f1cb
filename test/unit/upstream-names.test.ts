/** The upload side's check whether the upstream has a project name, and the serial larder has seen for it. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LarderError } from '../../src/base/errors.js';
import { type ProjectPage, sourced } from '../../src/model/documents.js';
import { normalizeName, type ProjectName } from '../../src/model/names.js';
import { UpstreamNameCheck, type CachedPages } from '../../src/upload/upstream-names.js';
import { projectPage } from '../helpers/model-builders.js';

const known = normalizeName('Demo_Pkg');
const unknown = normalizeName('brand-new');

/** The upstream has Demo_Pkg (serial 42); the cache holds what `cached` says. */
function pages(cached: ProjectPage | null, failure: Error | null = null): CachedPages & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async getProject(name: ProjectName) {
      asked.push(name);
      if (failure) throw failure;
      return sourced(name === known ? projectPage([], { origin: 'upstream' }) : null);
    },
    cachedPage: (name) => (name === known ? cached : null),
  };
}

describe('UpstreamNameCheck', () => {
  test('online, the upstream is asked through the cached source', async () => {
    const source = pages(null);
    const check = new UpstreamNameCheck(source, false);
    assert.equal(await check.exists(known), true);
    assert.equal(await check.exists(unknown), false);
    assert.deepEqual(source.asked, [known, unknown]);
  });

  test('an upstream that cannot answer refuses with a 503 naming the project', async () => {
    const check = new UpstreamNameCheck(pages(null, new Error('connect ECONNREFUSED')), false);
    await assert.rejects(check.exists(unknown), (err: unknown) => {
      assert.ok(err instanceof LarderError);
      assert.equal(err.status, 503);
      assert.equal(err.code, 'upstream_check_failed');
      assert.equal(
        err.message,
        "larder could not ask the upstream index whether 'brand-new' exists (connect ECONNREFUSED); try again later, or have an administrator allow the name.",
      );
      return true;
    });
  });

  test('offline, only the cache answers and the upstream is never asked', async () => {
    const cachedSource = pages(projectPage([], { origin: 'upstream' }));
    assert.equal(await new UpstreamNameCheck(cachedSource, true).exists(known), true);
    assert.equal(await new UpstreamNameCheck(cachedSource, true).exists(unknown), false);
    const nothingCached = pages(null);
    assert.equal(await new UpstreamNameCheck(nothingCached, true).exists(known), false);
    assert.deepEqual([...cachedSource.asked, ...nothingCached.asked], []);
  });

  test('the known serial is the cached page’s, 0 when none is cached, without asking the upstream', () => {
    const source = pages(projectPage([], { serial: 7, origin: 'upstream' }));
    const check = new UpstreamNameCheck(source, false);
    assert.equal(check.knownSerial(known), 7);
    assert.equal(check.knownSerial(unknown), 0);
    assert.equal(new UpstreamNameCheck(pages(null), false).knownSerial(known), 0);
    assert.deepEqual(source.asked, []);
  });
});
