import { createReadStream } from 'node:fs';
/** The JSON API document built from a simple page, for upstreams without a JSON API; the `.metadata` reader it uses. */
import { turnCounter } from '../helpers/turn-counter.js';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type FileBody, type ProjectReleases, sourced } from '../../src/model/documents.js';
import { normalizeName } from '../../src/model/names.js';
import { MAX_METADATA_BYTES } from '../../src/download/cached-file-target.js';
import { coreMetadataFile } from '../../src/sources/core-metadata-file.js';
import { JsonApiFromPages, RECHECK_INCOMPLETE_MS } from '../../src/sources/json-api-from-pages.js';
import { ITEMS_PER_SLICE, releasesFromPage } from '../../src/upstream/json-api-from-simple.js';
import { isPlaceholderMetadata } from '../../src/upstream/parse-json-api.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { fileEntry, projectPage } from '../helpers/model-builders.js';
import { coreMetadataText, FakeSource, fileKey, recordingLogger } from '../helpers/fake-source.js';

const name = normalizeName('Demo_Pkg');

/** Demo_Pkg 1.0 and 2.0 (the latest), each a wheel with a `.metadata` file, and 3.0.dev1 (a pre-release). */
function demo(): { inner: FakeSource; source: JsonApiFromPages; warnings: string[]; clock: ManualClock } {
  const inner = new FakeSource();
  inner.pages.set(
    name,
    projectPage(
      [
        fileEntry('demo_pkg-1.0-py3-none-any.whl', { coreMetadata: true }),
        fileEntry('demo_pkg-2.0.tar.gz'),
        fileEntry('demo_pkg-2.0-py3-none-any.whl', { coreMetadata: { sha256: 'b'.repeat(64) } }),
        fileEntry('demo_pkg-3.0.dev1-py3-none-any.whl', { coreMetadata: true }),
      ],
      { versions: ['1.0', '2.0', '3.0.dev1'], origin: 'upstream' },
    ),
  );
  inner.bodies.set(fileKey('demo_pkg-1.0-py3-none-any.whl', 'metadata'), coreMetadataText('Demo_Pkg', '1.0', 'one'));
  inner.bodies.set(fileKey('demo_pkg-2.0-py3-none-any.whl', 'metadata'), coreMetadataText('Demo_Pkg', '2.0', 'two'));
  const { logger, warnings } = recordingLogger();
  const clock = new ManualClock();
  return { inner, source: new JsonApiFromPages(inner, coreMetadataFile(inner, logger), inner, clock), warnings, clock };
}

/** A plain mirror's page: no sizes, no digests, no `.metadata`; `count` sdists, one release each. */
function plainPage(count: number) {
  const files = Array.from({ length: count }, (_, i) => fileEntry(`demo_pkg-1.${i}.tar.gz`, { hashes: {}, size: null }));
  return projectPage(files, { versions: files.map((f) => f.version!), origin: 'upstream' });
}

const sizeOf = (doc: ProjectReleases, filename: string) => doc.releases.flatMap((r) => r.files).find((f) => f.filename === filename)!.size;

const summaries = (doc: ProjectReleases) => Object.fromEntries(doc.releases.map((r) => [r.version, r.metadata.summary]));

describe('JsonApiFromPages', () => {
  test('a document the inner source has is passed on as it is, and the page is not read', async () => {
    const { inner, source } = demo();
    const upstreamDoc = releasesFromPage(inner.pages.get(name)!);
    inner.documents.set(name, upstreamDoc);
    assert.equal((await source.getReleases(name)).value, upstreamDoc);
    assert.deepEqual(inner.calls, [`getReleases ${name}`]);
  });

  test('without one: releases from the page, `info` of the latest final release from its `.metadata`', async () => {
    const { inner, source } = demo();
    const answer = await source.getReleases(name);
    assert.equal(answer.provenance.cache, 'hit', 'the provenance of the page it is built from');
    const doc = answer.value!;
    assert.deepEqual(summaries(doc), { '1.0': null, '2.0': 'two', '3.0.dev1': null });
    assert.equal(doc.releases.find((r) => r.version === '2.0')!.metadata.description, 'The description of Demo_Pkg 2.0.\n');
    assert.ok(isPlaceholderMetadata(doc.releases.find((r) => r.version === '1.0')!.metadata));
    assert.deepEqual(
      doc.releases.map((r) => r.files.map((f) => f.filename)),
      [['demo_pkg-1.0-py3-none-any.whl'], ['demo_pkg-2.0.tar.gz', 'demo_pkg-2.0-py3-none-any.whl'], ['demo_pkg-3.0.dev1-py3-none-any.whl']],
    );
    // The sdist has no `.metadata`: the wheel's is read, and only that one.
    assert.deepEqual(inner.calls, [`getReleases ${name}`, `getProject ${name}`, 'openFile demo_pkg-2.0-py3-none-any.whl metadata']);
  });

  test('one build per page: the same document again, without reading `.metadata` again', async () => {
    const { inner, source } = demo();
    const [first, second] = (await Promise.all([source.getReleases(name), source.getReleases(name)])).map((answer) => answer.value);
    assert.equal(first, second);
    assert.equal((await source.getReleases(name)).value, first);
    assert.equal(inner.calls.filter((c) => c.startsWith('openFile')).length, 1);
    // A new page (the cache refreshed it) gets a new build.
    inner.pages.set(name, { ...inner.pages.get(name)!, serial: 43 });
    const rebuilt = (await source.getReleases(name)).value!;
    assert.notEqual(rebuilt, first);
    assert.equal(rebuilt.serial, 43);
  });

  test('sizes and digests the page lacks come from the cached-file index, one lookup per file and build, without opening a file', async () => {
    const { inner, source } = demo();
    const files = 5_000;
    inner.pages.set(name, plainPage(files));
    const doc = (await source.getReleases(name)).value!;
    assert.equal(doc.releases.length, files);
    assert.equal(inner.storedLookups, files);
    assert.deepEqual(
      inner.calls.filter((c) => c.startsWith('openFile') && c.endsWith(' file')),
      [],
    );
    assert.equal((await source.getReleases(name)).value, doc, 'the second request reuses the build');
    assert.equal(inner.storedLookups, files);
  });

  test('a page of 10,000 files is built in slices, the event loop turning between them, into what one pass gives', async () => {
    const { inner, source } = demo();
    const page = plainPage(10_000);
    inner.pages.set(name, page);
    const counter = turnCounter();
    const doc = (await source.getReleases(name)).value!;
    counter.stop();
    const turns = counter.turns();
    // Slices of ITEMS_PER_SLICE: five of lookups, five of files, five of versions, five of releases at least.
    assert.ok(turns >= 4 * (10_000 / ITEMS_PER_SLICE), `the event loop turned ${turns} times`);
    assert.deepEqual(doc, releasesFromPage(page));
  });

  test('an incomplete build is reused until this node caches a file of the project, then built again with its size and sha256', async () => {
    const { inner, source } = demo();
    inner.pages.set(name, plainPage(3));
    const first = (await source.getReleases(name)).value!;
    assert.equal(sizeOf(first, 'demo_pkg-1.1.tar.gz'), null);
    assert.equal((await source.getReleases(name)).value, first);
    inner.cache('demo_pkg-1.1.tar.gz', { size: 7, sha256: 'c'.repeat(64) });
    const second = (await source.getReleases(name)).value!;
    assert.notEqual(second, first);
    assert.equal(sizeOf(second, 'demo_pkg-1.1.tar.gz'), 7);
    assert.equal(second.releases.flatMap((r) => r.files).find((f) => f.filename === 'demo_pkg-1.1.tar.gz')!.hashes.sha256, 'c'.repeat(64));
    assert.equal((await source.getReleases(name)).value, second);
  });

  test('what another node cached (no mark moves here) shows once RECHECK_INCOMPLETE_MS has passed', async () => {
    const { inner, source, clock } = demo();
    inner.pages.set(name, plainPage(2));
    const first = (await source.getReleases(name)).value!;
    inner.stored.set('demo_pkg-1.0.tar.gz', { size: 9, sha256: 'd'.repeat(64) });
    clock.advance(RECHECK_INCOMPLETE_MS - 1);
    assert.equal((await source.getReleases(name)).value, first);
    clock.advance(1);
    assert.equal(sizeOf((await source.getReleases(name)).value!, 'demo_pkg-1.0.tar.gz'), 9);
  });

  test('a complete build is kept whatever is cached later', async () => {
    const { inner, source, clock } = demo();
    const first = (await source.getReleases(name)).value!;
    inner.cache('demo_pkg-2.0.tar.gz', { size: 9, sha256: 'd'.repeat(64) });
    clock.advance(RECHECK_INCOMPLETE_MS);
    assert.equal((await source.getReleases(name)).value, first);
  });

  test('a latest release without a readable `.metadata` keeps the placeholder, and the failure is logged', async () => {
    const { inner, source, warnings } = demo();
    inner.bodies.set(fileKey('demo_pkg-2.0-py3-none-any.whl', 'metadata'), new Error('upstream went away'));
    const doc = (await source.getReleases(name)).value!;
    assert.ok(doc.releases.every((r) => isPlaceholderMetadata(r.metadata)));
    assert.deepEqual(warnings, ['could not read core metadata for the JSON API document']);
  });

  test('an unknown project is null; a failing inner source fails the request', async () => {
    const { inner, source } = demo();
    assert.equal((await source.getReleases(normalizeName('other'))).value, null);
    inner.failure = new Error('no upstream');
    await assert.rejects(source.getReleases(name), /no upstream/);
  });

  test('everything else goes to the inner source', async () => {
    const { inner, source } = demo();
    assert.equal((await source.getProject(name)).value, inner.pages.get(name));
    assert.equal((await source.openFile(name, 'demo_pkg-1.0-py3-none-any.whl', 'file')).value, null);
    assert.equal(await source.lastSerial(), 42);
    assert.equal(await source.listVersion(), 'fake');
    const batches = [];
    for await (const batch of source.listProjects()) batches.push(batch);
    assert.deepEqual(batches, [[{ name: 'Demo_Pkg', serial: 42 }]]);
    assert.deepEqual(inner.calls, [`getProject ${name}`, 'openFile demo_pkg-1.0-py3-none-any.whl file']);
  });
});

describe('coreMetadataFile', () => {
  const release = (files: ReturnType<typeof fileEntry>[]) => releasesFromPage(projectPage(files, { versions: ['1.0'] })).releases[0]!;

  test('a release none of whose files has a `.metadata` is not asked about', async () => {
    const inner = new FakeSource();
    const { logger } = recordingLogger();
    assert.equal(await coreMetadataFile(inner, logger)(name, release([fileEntry('demo_pkg-1.0.tar.gz')])), null);
    assert.deepEqual(inner.calls, []);
  });

  test('a file on disk is read; one over the bound is not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'larder-core-metadata-'));
    try {
      const path = join(dir, 'METADATA');
      await writeFile(path, coreMetadataText('Demo_Pkg', '1.0', 'from disk'));
      let size = 10;
      const source = {
        openFile: async () =>
          sourced<FileBody>({
            kind: 'stored',
            path,
            size,
            sha256: 'x',
            etag: '"x"',
            contentType: 'text/plain',
            read: async () => createReadStream(path),
            directUrl: null,
          }),
      };
      const { logger, warnings } = recordingLogger();
      const lookup = coreMetadataFile(source, logger);
      const wheel = release([fileEntry('demo_pkg-1.0-py3-none-any.whl', { coreMetadata: true })]);
      assert.equal((await lookup(name, wheel))!.summary, 'from disk');
      size = MAX_METADATA_BYTES + 1;
      assert.equal(await lookup(name, wheel), null);
      assert.deepEqual(warnings, []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
