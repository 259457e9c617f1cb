import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Release } from '../../src/model/documents.js';
import { compareVersions } from '../../src/model/versions.js';
import { emptyMetadata, isPlaceholderMetadata, parseJsonApi, parseReleaseJson } from '../../src/upstream/parse-json-api.js';

const fixtures = new URL('../fixtures/spec/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, fixtures), 'utf8');

const projectText = fixture('pypi-json-project.requests.json');
const releaseText = fixture('pypi-json-release.requests-2.31.0.json');
const raw = JSON.parse(projectText) as { info: any; releases: Record<string, any[]>; last_serial: number };
const opts = { pageUrl: 'https://pypi.org/pypi/requests/json' };

const release = (releases: Release[], version: string): Release => {
  const found = releases.find((r) => r.version === version);
  assert.ok(found, `no release ${version}`);
  return found;
};

describe('parseJsonApi (requests)', () => {
  const doc = parseJsonApi(projectText, { ...opts, headerSerial: 1 });

  it('reads the project, its serial and every release in version order', () => {
    assert.equal(doc.name, 'requests');
    assert.equal(doc.displayName, 'requests');
    assert.equal(doc.serial, 29525769, 'last_serial wins over the header');
    const versions = doc.releases.map((r) => r.version);
    assert.equal(versions.length, Object.keys(raw.releases).length);
    assert.equal(versions.length, 156);
    assert.deepEqual(versions, Object.keys(raw.releases).sort(compareVersions));
    assert.equal(versions.at(-1), '2.32.4');
    const fileCount = doc.releases.reduce((n, r) => n + r.files.length, 0);
    assert.equal(fileCount, 230);
  });

  it('keeps releases without files', () => {
    for (const version of ['0.0.1', '0.12.01', '2.15.0']) {
      const r = release(doc.releases, version);
      assert.deepEqual(r.files, []);
      assert.equal(r.yanked, false);
      assert.deepEqual(r.metadata, emptyMetadata('requests', version));
    }
  });

  it('gives info to the version it describes and a marked placeholder to the others', () => {
    const latest = release(doc.releases, '2.32.4');
    assert.equal(isPlaceholderMetadata(latest.metadata), false);
    const m = latest.metadata;
    assert.equal(m.name, 'requests');
    assert.equal(m.version, '2.32.4');
    assert.equal(m.summary, 'Python HTTP for Humans.');
    assert.equal(m.description, raw.info.description);
    assert.ok(m.description!.startsWith('# Requests'));
    assert.equal(m.description_content_type, 'text/markdown');
    assert.equal(m.author, 'Kenneth Reitz');
    assert.equal(m.author_email, 'me@kennethreitz.org');
    assert.equal(m.maintainer, null);
    assert.equal(m.license, 'Apache-2.0');
    assert.equal(m.license_expression, null);
    assert.deepEqual(m.license_files, ['LICENSE']);
    assert.equal(m.keywords, null);
    assert.equal(m.home_page, 'https://requests.readthedocs.io');
    assert.equal(m.download_url, null);
    assert.equal(m.platform, null);
    assert.equal(m.requires_python, '>=3.8');
    assert.deepEqual(m.requires_dist, raw.info.requires_dist);
    assert.equal(m.requires_dist!.length, 6);
    assert.deepEqual(m.provides_extra, ['security', 'socks', 'use-chardet-on-py3']);
    assert.equal(m.dynamic!.length, 13);
    assert.equal(m.classifiers.length, 19);
    assert.deepEqual(m.project_urls, {
      Documentation: 'https://requests.readthedocs.io',
      Homepage: 'https://requests.readthedocs.io',
      Source: 'https://github.com/psf/requests',
    });

    const older = release(doc.releases, '2.31.0');
    assert.equal(isPlaceholderMetadata(older.metadata), true);
    assert.deepEqual(older.metadata, emptyMetadata('requests', '2.31.0'));
    assert.equal(older.files.length, 2, 'files are still there');
  });

  it('reads every file field', () => {
    const [whl, sdist] = release(doc.releases, '2.32.4').files;
    assert.deepEqual(whl, {
      filename: 'requests-2.32.4-py3-none-any.whl',
      version: '2.32.4',
      sourceUrl: 'https://files.pythonhosted.org/packages/7c/e4/56027c4a6b4ae70ca9de302488c5ca95ad4a39e190093d6c1a8ace08341b/requests-2.32.4-py3-none-any.whl',
      hashes: {
        blake2b_256: '7ce456027c4a6b4ae70ca9de302488c5ca95ad4a39e190093d6c1a8ace08341b',
        md5: 'fa8fa331f951fbc5e62f3d3e683a77a4',
        sha256: '27babd3cda2a6d50b30443204ee89830707d396671944c998b5975b031ac2b2c',
      },
      requiresPython: '>=3.8',
      yanked: false,
      yankedReason: null,
      coreMetadata: false,
      size: 64847,
      uploadTime: '2025-06-09T16:43:05.728107Z',
      hasSig: false,
      packagetype: 'bdist_wheel',
      pythonVersion: 'py3',
      comment: null,
    });
    assert.equal(sdist!.packagetype, 'sdist');
    assert.equal(sdist!.pythonVersion, 'source');
    const egg = release(doc.releases, '2.23.0').files.find((f) => f.filename.endsWith('.egg'))!;
    assert.equal(egg.packagetype, 'bdist_egg');
    assert.equal(egg.pythonVersion, '2.7');
    assert.equal(release(doc.releases, '2.32.0').files[0]!.comment, '', 'comment_text passes through');
  });

  it('agrees with the raw document on every file', () => {
    for (const r of doc.releases) {
      const rawFiles = raw.releases[r.version]!;
      assert.equal(r.files.length, rawFiles.length, r.version);
      r.files.forEach((file, i) => {
        const rf = rawFiles[i];
        assert.equal(file.filename, rf.filename);
        assert.equal(file.version, r.version, 'filename version = release version throughout this fixture');
        assert.equal(file.sourceUrl, rf.url);
        assert.deepEqual(file.hashes, rf.digests);
        assert.equal(file.hashes.md5, rf.md5_digest);
        assert.equal(file.size, rf.size);
        assert.equal(file.uploadTime, rf.upload_time_iso_8601);
        assert.equal(file.requiresPython, rf.requires_python);
        assert.equal(file.yanked, rf.yanked);
        assert.equal(file.packagetype, rf.packagetype);
        assert.equal(file.pythonVersion, rf.python_version);
      });
    }
  });

  it('reads yanked releases', () => {
    for (const version of ['2.32.0', '2.32.1']) {
      const r = release(doc.releases, version);
      assert.equal(r.yanked, true, version);
      assert.equal(r.yankedReason, raw.releases[version]![0].yanked_reason, 'passed through as sent');
      assert.match(r.yankedReason!, /^Yanked due to conflicts with CVE-2024-35195 mitigation ?$/);
      assert.ok(r.files.length > 0 && r.files.every((f) => f.yanked && f.yankedReason === r.yankedReason));
    }
    assert.ok(release(doc.releases, '2.32.1').yankedReason!.endsWith(' '), 'the trailing space of 2.32.1 is kept');
    const notYanked = doc.releases.filter((r) => !r.yanked).length;
    assert.equal(notYanked, 154);
  });

  it('files vulnerabilities under info.version', () => {
    assert.deepEqual(doc.vulnerabilities, { '2.32.4': [] });
    assert.equal(doc.ownership, undefined);
  });

  it('falls back to the header serial', () => {
    const noSerial = JSON.parse(projectText);
    delete noSerial.last_serial;
    assert.equal(parseJsonApi(JSON.stringify(noSerial), { ...opts, headerSerial: 77 }).serial, 77);
    assert.equal(parseJsonApi(JSON.stringify(noSerial), opts).serial, 0);
  });
});

describe('parseReleaseJson (requests 2.31.0)', () => {
  const doc = parseReleaseJson(releaseText, { pageUrl: 'https://pypi.org/pypi/requests/2.31.0/json' });

  it('reads info as that version’s metadata, with legacy empty strings kept', () => {
    assert.equal(doc.name, 'requests');
    assert.equal(doc.serial, 29525769);
    const { release: r } = doc;
    assert.equal(r.version, '2.31.0');
    assert.equal(r.yanked, false);
    assert.equal(r.yankedReason, null);
    assert.equal(r.metadata.version, '2.31.0');
    assert.equal(r.metadata.download_url, '');
    assert.equal(r.metadata.maintainer, '');
    assert.equal(r.metadata.keywords, '');
    assert.equal(r.metadata.license, 'Apache 2.0');
    assert.equal(r.metadata.requires_python, '>=3.7');
    assert.equal(r.metadata.dynamic, null);
    assert.equal(r.metadata.license_files, null);
    assert.equal(r.metadata.provides_extra, null);
    assert.deepEqual(r.metadata.requires_dist?.[0], 'charset-normalizer (<4,>=2)');
    assert.equal(isPlaceholderMetadata(r.metadata), false);
    assert.deepEqual(
      r.files.map((f) => f.filename),
      ['requests-2.31.0-py3-none-any.whl', 'requests-2.31.0.tar.gz'],
    );
  });

  it('passes vulnerabilities through', () => {
    const expected = JSON.parse(releaseText).vulnerabilities;
    assert.equal(doc.vulnerabilities.length, 2);
    assert.deepEqual(doc.vulnerabilities, expected);
    assert.deepEqual(doc.vulnerabilities[0]!.aliases, ['CVE-2024-35195']);
  });

  it('gives the same project view as the release within the project document, where both know it', () => {
    const fromProject = release(parseJsonApi(projectText, opts).releases, '2.31.0');
    assert.deepEqual(doc.release.files, fromProject.files);
  });
});

describe('JSON API edge cases', () => {
  const base = {
    info: { name: 'Foo.Bar', version: '2.0', yanked: true, yanked_reason: '', classifiers: [], requires_dist: [] },
    last_serial: 3,
    urls: [
      {
        filename: 'foo_bar-2.0.tar.gz',
        url: '/files/foo_bar-2.0.tar.gz#frag',
        digests: { sha256: 'AA' },
        md5_digest: 'bb',
        upload_time: '2020-01-02T03:04:05',
        yanked: true,
        yanked_reason: '',
        'core-metadata': { sha256: 'cc' },
        has_sig: true,
      },
    ],
    ownership: {
      roles: [
        { role: 'Owner', user: 'alice' },
        { role: 'Boss', user: 'eve' },
      ],
      organization: null,
    },
  };

  it('builds one release from info and urls when there is no releases key', () => {
    const doc = parseJsonApi(JSON.stringify(base), { pageUrl: 'https://idx.example/pypi/foo-bar/json' });
    assert.equal(doc.name, 'foo-bar');
    assert.equal(doc.displayName, 'Foo.Bar');
    assert.equal(doc.releases.length, 1);
    const [r] = doc.releases;
    assert.deepEqual([r!.yanked, r!.yankedReason], [true, null], 'an empty reason is no reason');
    assert.equal(r!.metadata.requires_dist, null, '[] becomes null');
    const [f] = r!.files;
    assert.equal(f!.sourceUrl, 'https://idx.example/files/foo_bar-2.0.tar.gz');
    assert.deepEqual(f!.hashes, { sha256: 'aa', md5: 'bb' }, 'md5_digest fills in a missing digests.md5');
    assert.equal(f!.uploadTime, '2020-01-02T03:04:05Z');
    assert.deepEqual(f!.coreMetadata, { sha256: 'cc' });
    assert.equal(f!.hasSig, true);
    assert.equal(f!.packagetype, 'sdist', 'derived from the filename when missing');
    assert.equal(f!.pythonVersion, 'source');
    assert.deepEqual(doc.ownership, { roles: [{ role: 'Owner', user: 'alice' }], organization: null });
  });

  it('rejects garbage', () => {
    const o = { pageUrl: 'https://idx.example/pypi/x/json' };
    assert.throws(() => parseJsonApi('{"message": "Not Found"', o), /JSON API document .* is not valid JSON/);
    assert.throws(() => parseJsonApi('{"message": "Not Found"}', o), /"info" is missing/);
    assert.throws(() => parseJsonApi('{"info": {"name": "x"}}', o), /"info.version" must be/);
    assert.throws(() => parseJsonApi('{"info": {"version": "1"}}', o), /"info.name" must be/);
    assert.throws(
      () => parseJsonApi('{"info": {"name": "x", "version": "1"}, "releases": {"1": [{"url": "u"}]}}', o),
      /releases\["1"\]\[0\]: "filename" must be a non-empty string/,
    );
    assert.throws(() => parseJsonApi('{"info": {"name": "x", "version": "1"}, "releases": []}', o), /"releases" is not an object/);
    assert.throws(() => parseReleaseJson('{"info": {"name": "x", "version": "1"}, "urls": {}}', o), /urls: expected an array/);
  });
});
