/** Filling one release's own metadata into a project's JSON API document, for `/pypi/<p>/<v>/json`. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProjectReleases, Release, ReleaseMetadata } from '../../src/model/documents.js';
import { normalizeName } from '../../src/model/names.js';
import type { ReleaseMetadataLookup } from '../../src/sources/core-metadata-file.js';
import { ReleaseMetadataFiller } from '../../src/sources/release-metadata.js';
import { releasesFromPage } from '../../src/upstream/json-api-from-simple.js';
import { fileEntry, projectPage } from '../helpers/model-builders.js';
import { FakeSource, releaseMetadata } from '../helpers/fake-source.js';

const name = normalizeName('Demo_Pkg');

/** A document whose 2.0 carries its metadata and whose 1.0.0 and 0.9 have placeholders. */
function document(): ProjectReleases {
  const page = projectPage([fileEntry('demo_pkg-0.9.tar.gz'), fileEntry('demo_pkg-1.0.0.tar.gz'), fileEntry('demo_pkg-2.0.tar.gz')], {
    versions: ['0.9', '1.0.0', '2.0'],
    origin: 'upstream',
  });
  return releasesFromPage(page, new Map([['2.0', releaseMetadata('Demo_Pkg', '2.0', 'two')]]));
}

/** A lookup that answers from `answers` (an Error is thrown) and records what it was asked. */
function lookup(answers: Record<string, ReleaseMetadata | Error | null>, asked: string[], label: string): ReleaseMetadataLookup {
  return async (_name, release: Release) => {
    asked.push(`${label} ${release.version}`);
    const answer = answers[release.version] ?? null;
    if (answer instanceof Error) throw answer;
    return answer;
  };
}

function setUp(first: Record<string, ReleaseMetadata | Error | null>, second: Record<string, ReleaseMetadata | Error | null>) {
  const inner = new FakeSource();
  const doc = document();
  inner.documents.set(name, doc);
  const asked: string[] = [];
  const source = new ReleaseMetadataFiller(inner, [lookup(first, asked, 'json'), lookup(second, asked, 'file')]);
  return { inner, doc, asked, source };
}

const summaries = (doc: ProjectReleases) => Object.fromEntries(doc.releases.map((r) => [r.version, r.metadata.summary]));

describe('ReleaseMetadataFiller', () => {
  test('without a version the document is passed on as it is', async () => {
    const { doc, asked, source } = setUp({ '1.0.0': releaseMetadata('Demo_Pkg', '1.0.0', 'one') }, {});
    assert.equal((await source.getReleases(name)).value, doc);
    assert.deepEqual(asked, []);
  });

  test("the version's placeholder is filled from the first lookup; the rest of the document is unchanged", async () => {
    const { inner, doc, asked, source } = setUp({ '1.0.0': releaseMetadata('Demo_Pkg', '1.0.0', 'one') }, {});
    const filled = (await source.getReleases(name, '1.0.0')).value!;
    assert.deepEqual(summaries(filled), { '0.9': null, '1.0.0': 'one', '2.0': 'two' });
    assert.deepEqual(summaries(doc), { '0.9': null, '1.0.0': null, '2.0': 'two' });
    assert.deepEqual(asked, ['json 1.0.0']);
    // The inner source is asked for the project's document, not for the version.
    assert.deepEqual(inner.calls, [`getReleases ${name}`]);
  });

  test('a lookup that fails or finds nothing hands over to the next', async () => {
    const { source, asked } = setUp(
      { '0.9': new Error('upstream down'), '1.0.0': null },
      { '0.9': releaseMetadata('Demo_Pkg', '0.9', 'nine'), '1.0.0': releaseMetadata('Demo_Pkg', '1.0.0', 'one') },
    );
    assert.equal((await source.getReleases(name, '0.9')).value!.releases[0]!.metadata.summary, 'nine');
    assert.equal((await source.getReleases(name, '1.0.0')).value!.releases[1]!.metadata.summary, 'one');
    assert.deepEqual(asked, ['json 0.9', 'file 0.9', 'json 1.0.0', 'file 1.0.0']);
  });

  test('when no lookup finds it, the document is passed on as it is', async () => {
    const { doc, source } = setUp({}, {});
    assert.equal((await source.getReleases(name, '0.9')).value, doc);
  });

  test('a release that has its metadata, or a version the document does not have, is not looked up', async () => {
    const { doc, asked, source } = setUp({ '2.0': releaseMetadata('Demo_Pkg', '2.0', 'other') }, {});
    assert.equal((await source.getReleases(name, '2.0')).value, doc);
    assert.equal((await source.getReleases(name, '7.0')).value, doc);
    assert.deepEqual(asked, []);
  });

  test('once per document and release: the same answer again, also for another spelling of the version', async () => {
    const { inner, asked, source } = setUp({ '1.0.0': releaseMetadata('Demo_Pkg', '1.0.0', 'one') }, {});
    const [a, b] = (await Promise.all([source.getReleases(name, '1.0.0'), source.getReleases(name, '1.0.0')])).map((answer) => answer.value);
    assert.equal(a, b);
    assert.equal((await source.getReleases(name, '1.0')).value, a);
    assert.deepEqual(asked, ['json 1.0.0']);
    // A new document (the cache refreshed it) is filled anew.
    inner.documents.set(name, document());
    assert.notEqual((await source.getReleases(name, '1.0.0')).value, a);
    assert.deepEqual(asked, ['json 1.0.0', 'json 1.0.0']);
  });

  test('an unknown project is null; a failing inner source fails the request', async () => {
    const { inner, source } = setUp({}, {});
    assert.equal((await source.getReleases(normalizeName('other'), '1.0')).value, null);
    inner.failure = new Error('no upstream');
    await assert.rejects(source.getReleases(name, '1.0.0'), /no upstream/);
  });
});
