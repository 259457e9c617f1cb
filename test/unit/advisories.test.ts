/** The advisories' parts that need no server: CVSS 3.x base scores and bands, OSV documents read into entries, and which versions an advisory names (PEP 440 order). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdvisoryIndex, withoutCoveredVersions } from '../../src/policy/advisory-index.js';
import { cvss3BaseScore, scoreBand } from '../../src/policy/cvss.js';
import { OsvDocumentError, readOsvDocument } from '../../src/policy/osv-document.js';
import { osvDocument, type OsvFields } from '../helpers/osv-zip.js';

const read = (fields: OsvFields) => readOsvDocument(JSON.stringify(osvDocument(fields)));

describe('CVSS 3.x base score', () => {
  test('scores vectors as the CVSS 3.1 specification does (values from the FIRST calculator)', () => {
    assert.equal(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'), 9.8);
    assert.equal(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H'), 9.9);
    assert.equal(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N'), 6.1);
    assert.equal(cvss3BaseScore('CVSS:3.0/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H'), 7.8);
    assert.equal(cvss3BaseScore('CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N'), 1.6);
    assert.equal(cvss3BaseScore('CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N'), 5.9);
    assert.equal(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N'), 0);
    // Temporal metrics after the base ones do not change the base score.
    assert.equal(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:O'), 9.8);
  });

  test('refuses what is not a complete 3.x vector', () => {
    for (const vector of [
      'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
      'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H',
      'CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:Q/C:H/I:H/A:H',
      '',
    ]) {
      assert.equal(cvss3BaseScore(vector), null, vector);
    }
  });

  test('bands: 0.1–3.9 low, 4.0–6.9 moderate, 7.0–8.9 high, 9.0–10 critical', () => {
    assert.deepEqual([0, 0.1, 3.9, 4, 6.9, 7, 8.9, 9, 10].map(scoreBand), [null, 'low', 'low', 'moderate', 'moderate', 'high', 'high', 'critical', 'critical']);
  });
});

describe('OSV documents', () => {
  test("database_specific.severity wins over the CVSS vector; the vector's band otherwise", () => {
    const vector = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
    assert.equal(read({ id: 'GHSA-1', package: 'x', databaseSeverity: 'LOW', cvss: vector })[0]!.severity, 'low');
    assert.equal(read({ id: 'GHSA-2', package: 'x', databaseSeverity: 'MODERATE' })[0]!.severity, 'moderate');
    const scored = read({ id: 'PYSEC-1', package: 'x', cvss: vector })[0]!;
    assert.deepEqual([scored.severity, scored.score], ['critical', 9.8]);
    assert.equal(read({ id: 'MAL-1', package: 'x', events: [{ introduced: '0' }] })[0]!.severity, null);
  });

  test('keeps PyPI projects only, by normalized name, with their ECOSYSTEM ranges and versions', () => {
    const doc = osvDocument({ id: 'GHSA-3', package: 'Foo_Bar', events: [{ introduced: '1.0' }, { fixed: '1.2' }], versions: ['1.0', '1.1'] });
    (doc.affected as unknown[]).push(
      { package: { ecosystem: 'npm', name: 'foo-bar' }, versions: ['9.9'] },
      { package: { ecosystem: 'PyPI', name: 'foo.bar' }, ranges: [{ type: 'GIT', events: [{ introduced: 'abc' }] }], versions: ['3.0'] },
    );
    const entries = readOsvDocument(JSON.stringify(doc));
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.project, 'foo-bar');
    assert.deepEqual(entries[0]!.ranges, [[{ introduced: '1.0' }, { fixed: '1.2' }]]);
    assert.deepEqual(entries[0]!.versions, ['1.0', '1.1', '3.0']);
  });

  test('a withdrawn advisory names nothing; a document that is not OSV is refused', () => {
    assert.deepEqual(
      readOsvDocument(JSON.stringify({ ...osvDocument({ id: 'GHSA-4', package: 'x', versions: ['1'] }), withdrawn: '2026-01-01T00:00:00Z' })),
      [],
    );
    assert.throws(() => readOsvDocument('{not json'), OsvDocumentError);
    assert.throws(() => readOsvDocument('{"summary": "no id"}'), OsvDocumentError);
    assert.throws(() => readOsvDocument('[1, 2]'), OsvDocumentError);
  });
});

describe('which versions an advisory names', () => {
  const index = new AdvisoryIndex([
    ...read({ id: 'GHSA-range', package: 'lib', events: [{ introduced: '1.0' }, { fixed: '1.10' }, { introduced: '2.0rc1' }, { last_affected: '2.1' }] }),
    ...read({ id: 'GHSA-listed', package: 'lib', versions: ['3.0'] }),
    ...read({ id: 'MAL-all', package: 'evil', events: [{ introduced: '0' }] }),
    ...read({ id: 'MAL-one', package: 'other', versions: ['1.0'] }),
  ]);
  const ids = (project: string, version: string) => index.affecting(project, version).map((a) => a.id);

  test('ranges in PEP 440 order: introduced opens, fixed closes at, last_affected closes after', () => {
    assert.deepEqual(ids('lib', '0.9'), []);
    assert.deepEqual(ids('lib', '1.0'), ['GHSA-range']);
    assert.deepEqual(ids('lib', '1.9'), ['GHSA-range']);
    assert.deepEqual(ids('lib', '1.10'), []);
    assert.deepEqual(ids('lib', '1.10.0'), []);
    assert.deepEqual(ids('lib', '2.0b1'), []);
    assert.deepEqual(ids('lib', '2.0rc1'), ['GHSA-range']);
    assert.deepEqual(ids('lib', '2.1'), ['GHSA-range']);
    assert.deepEqual(ids('lib', '2.1.post1'), []);
  });

  test('listed versions match in canonical form; other projects are not named', () => {
    assert.deepEqual(ids('lib', '3.0.0'), ['GHSA-listed']);
    assert.deepEqual(ids('lib', '3.1'), []);
    assert.deepEqual(ids('nothing', '1.0'), []);
  });

  test('an introduced-0 range with no end covers every version; one listed version does not', () => {
    assert.deepEqual(ids('evil', '0.0.1'), ['MAL-all']);
    assert.deepEqual(ids('evil', 'not-pep-440'), ['MAL-all']);
    assert.deepEqual(
      index.coveringEveryVersion('evil').map((a) => a.id),
      ['MAL-all'],
    );
    assert.deepEqual(index.coveringEveryVersion('other'), []);
    assert.deepEqual(index.coveringEveryVersion('lib'), []);
  });

  test('listed versions the ranges already cover are dropped at import; what the advisory names is unchanged', () => {
    const [entry] = read({ id: 'PYSEC-9', package: 'lib', events: [{ introduced: '1.0' }, { fixed: '2.0' }], versions: ['1.0', '1.5', '3.0', 'weird'] });
    const kept = withoutCoveredVersions(entry!);
    assert.deepEqual(kept.versions, ['3.0', 'weird']);
    const names = (e: typeof entry) => ['0.9', '1.0', '1.5', '2.0', '3.0', 'weird'].filter((v) => new AdvisoryIndex([e!]).affecting('lib', v).length > 0);
    assert.deepEqual(names(kept), names(entry));
    assert.deepEqual(names(kept), ['1.0', '1.5', '3.0', 'weird']);
  });

  test('the lowest fixed version above the one asked', () => {
    const [range] = index.affecting('lib', '1.0');
    assert.equal(index.fixedAfter(range!, '1.0'), '1.10');
    assert.equal(index.fixedAfter(range!, '2.0'), null);
  });
});
