/** The `cached` source alone: what the upstream sends, through the document cache, and the cached page without asking. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import pino from 'pino';
import { LarderError } from '../../src/base/errors.js';
import type { ProjectPage, ProjectReleases } from '../../src/model/documents.js';
import { normalizeName } from '../../src/model/names.js';
import { CachedSource } from '../../src/sources/cached-source.js';
import type { Fetched, UpstreamFetcher } from '../../src/upstream/upstream-fetcher.js';
import { DiskSpace } from '../../src/store/disk-space.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import type { Storage } from '../../src/store/storage.js';
import { releasesFromPage } from '../../src/upstream/json-api-from-simple.js';
import type { ReleaseDocument } from '../../src/upstream/parse-json-api.js';
import { fileEntry, projectPage } from '../helpers/model-builders.js';
import { eventually } from '../helpers/eventually.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { releaseMetadata } from '../helpers/fake-source.js';

const name = normalizeName('Demo_Pkg');
const TTL = 60_000;

/** An upstream that has Demo_Pkg (page, JSON API document, 1.0's own document) and records what it is asked. */
class FakeUpstream {
  readonly indexUrl = 'https://upstream.test/simple/';
  readonly asked: string[] = [];
  readonly doc: ProjectReleases;

  constructor(
    readonly jsonApiUrl: string | null,
    readonly page: ProjectPage = projectPage([fileEntry('demo_pkg-1.0.tar.gz')], { versions: ['1.0'], origin: 'upstream' }),
  ) {
    this.doc = releasesFromPage(page);
  }

  private answer<T>(what: string, value: T | undefined): Fetched<T> {
    this.asked.push(what);
    return value === undefined ? { status: 'not-found' } : { status: 'ok', value, validators: { etag: '"1"' } };
  }

  async fetchProject(n: string): Promise<Fetched<ProjectPage>> {
    return this.answer(`page ${n}`, n === name ? this.page : undefined);
  }

  async fetchReleases(n: string): Promise<Fetched<ProjectReleases>> {
    return this.answer(`releases ${n}`, n === name ? this.doc : undefined);
  }

  async fetchRelease(n: string, version: string): Promise<Fetched<ReleaseDocument>> {
    const release = { ...this.doc.releases[0]!, metadata: releaseMetadata('Demo_Pkg', '1.0', 'its own') };
    const doc = { name, displayName: 'Demo_Pkg', serial: 42, release, vulnerabilities: [] };
    return this.answer(`release ${n} ${version}`, n === name && version === '1.0' ? doc : undefined);
  }

  failure(what: string): LarderError {
    return new LarderError('upstream_unreachable', `failed for ${what}`);
  }
}

let dir: string;
let storage: Storage;
const clock = new ManualClock();
/** Every test's store, closed at the end: pages are written in the background, after the test may have ended. */
const opened: { dir: string; storage: Storage }[] = [];

function cachedSource(upstream: FakeUpstream, offline = false): CachedSource {
  const options = {
    pageTtl: TTL,
    rootTtl: TTL,
    notFoundTtl: TTL,
    staleWait: 1000,
    offline,
    maxFileSize: 1 << 20,
    rootListFile: join(dir, 'cache', 'upstream-root.txt'),
    clock,
    space: new DiskSpace(dir, 0, clock),
  };
  return new CachedSource(upstream as unknown as UpstreamFetcher, storage, storage.blobs, options, pino({ level: 'silent' }));
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-cached-source-'));
  storage = openStorage(dir);
  opened.push({ dir, storage });
});
after(async () => {
  for (const store of opened) {
    await store.storage.close();
    await rm(store.dir, { recursive: true, force: true });
  }
});

describe('CachedSource', () => {
  test('the page is fetched once and served from the cache while fresh; `cachedPage` never asks', async () => {
    const upstream = new FakeUpstream(null);
    const source = cachedSource(upstream);
    assert.equal(source.cachedPage(name), null);
    assert.deepEqual((await source.getProject(name)).value, upstream.page);
    assert.deepEqual(source.cachedPage(name), upstream.page);
    assert.deepEqual((await source.getProject(name)).value, upstream.page);
    assert.equal((await source.getProject(normalizeName('other'))).value, null);
    assert.equal(source.cachedPage(normalizeName('other')), null);
    assert.deepEqual(upstream.asked, [`page ${name}`, 'page other']);
  });

  test('an upstream without a JSON API is not asked for JSON documents: both are null', async () => {
    const upstream = new FakeUpstream(null);
    const source = cachedSource(upstream);
    assert.equal((await source.getReleases(name)).value, null);
    assert.equal(await source.getReleaseMetadata(name, '1.0'), null);
    assert.deepEqual(upstream.asked, []);
  });

  test("with a JSON API: the project's document and a release's metadata, each fetched once", async () => {
    const upstream = new FakeUpstream('https://upstream.test/pypi/');
    const source = cachedSource(upstream);
    assert.deepEqual((await source.getReleases(name)).value, upstream.doc);
    assert.deepEqual((await source.getReleases(name)).value, upstream.doc);
    assert.equal((await source.getReleaseMetadata(name, '1.0'))!.summary, 'its own');
    assert.equal((await source.getReleaseMetadata(name, '1.0'))!.summary, 'its own');
    assert.equal(await source.getReleaseMetadata(name, '9.9'), null);
    assert.equal((await source.getReleases(normalizeName('other'))).value, null);
    assert.deepEqual(upstream.asked, [`releases ${name}`, `release ${name} 1.0`, `release ${name} 9.9`, 'releases other']);
  });

  test('what was cached is still there for a new source over the same store (offline: nothing is asked)', async () => {
    const online = new FakeUpstream('https://upstream.test/pypi/');
    const first = cachedSource(online);
    await first.getProject(name);
    await first.getReleases(name);
    // Entries are written to the store in the background.
    const stored = () => cachedSource(new FakeUpstream('https://upstream.test/pypi/'), true);
    await eventually(
      async () =>
        stored().cachedPage(name) !== null &&
        (await stored()
          .getReleases(name)
          .catch(() => null)) !== null,
      'the page and the JSON document stored',
    );
    const offline = new FakeUpstream('https://upstream.test/pypi/');
    const second = cachedSource(offline, true);
    assert.deepEqual(second.cachedPage(name), online.page);
    assert.deepEqual((await second.getReleases(name)).value, online.doc);
    await assert.rejects(second.getReleaseMetadata(name, '1.0'), (err: unknown) => err instanceof LarderError && err.code === 'offline_not_cached');
    assert.deepEqual(offline.asked, []);
  });

  test("a file of a page is found without a scan of the page per file: 2,000 files, each opened, read the page's list a few times", async () => {
    const files = Array.from({ length: 2000 }, (_, i) => fileEntry(`demo_pkg-1.${i}.tar.gz`, { hashes: {}, size: null }));
    let reads = 0;
    const counted = new Proxy(files, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const page = projectPage(counted, { versions: files.map((f) => f.version!), origin: 'upstream' });
    const source = cachedSource(new FakeUpstream(null, page));
    for (const file of files) {
      const body = (await source.openFile(name, file.filename, 'file')).value;
      assert.equal(body?.kind, 'stream', file.filename);
    }
    assert.equal((await source.openFile(name, 'demo_pkg-9.9.tar.gz', 'file')).value, null);
    await source.settled();
    // One pass to index the page, one to store it; a scan per file would be about 2,000,000.
    assert.ok(reads <= 5 * files.length, `${reads} reads of the page's files`);
  });
});
