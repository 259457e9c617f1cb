import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ProjectPage, ReleaseMetadata } from '../../src/model/documents.js';
import { normalizeName } from '../../src/model/names.js';
import { parseCoreMetadata, releasesFromPage } from '../../src/upstream/json-api-from-simple.js';
import { emptyMetadata, parseJsonApi } from '../../src/upstream/parse-json-api.js';
import { parseSimpleHtml } from '../../src/upstream/parse-simple-html.js';
import { parseSimpleJson } from '../../src/upstream/parse-simple-json.js';

const fixtures = new URL('../fixtures/spec/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, fixtures), 'utf8');

const METADATA_24 = `Metadata-Version: 2.4
Name: Foo.Bar
Version: 1.2.0
Summary: Does foo
  and bar.
Keywords: foo,bar
Home-page: https://foo.example
Download-URL: https://foo.example/dl
Author: Ann
Author-email: Ann <ann@example.com>
Maintainer-email: Bob <bob@example.com>
License-Expression: MIT OR Apache-2.0
License-File: LICENSE
License-File: licenses/NOTICE
Platform: linux
Platform: win32
Classifier: Programming Language :: Python :: 3
Classifier: License :: OSI Approved :: MIT License
Requires-Python: >=3.9
Requires-Dist: requests>=2
Requires-Dist: rich; extra == "cli"
Provides-Extra: cli
Project-URL: Homepage, https://foo.example
Project-URL: Issue Tracker, https://foo.example/issues?a=1,2
Project-URL: no label here
Dynamic: Requires-Dist
Description-Content-Type: text/markdown

# Foo

Body text: with a colon.
`;

describe('parseCoreMetadata', () => {
  it('reads a METADATA 2.4 file, multi-use fields and the body as description', () => {
    const m = parseCoreMetadata(METADATA_24);
    assert.deepEqual(m, {
      name: 'Foo.Bar',
      version: '1.2.0',
      summary: 'Does foo and bar.',
      description: '# Foo\n\nBody text: with a colon.\n',
      description_content_type: 'text/markdown',
      author: 'Ann',
      author_email: 'Ann <ann@example.com>',
      maintainer: null,
      maintainer_email: 'Bob <bob@example.com>',
      license: null,
      license_expression: 'MIT OR Apache-2.0',
      license_files: ['LICENSE', 'licenses/NOTICE'],
      keywords: 'foo,bar',
      home_page: 'https://foo.example',
      download_url: 'https://foo.example/dl',
      platform: 'linux',
      requires_python: '>=3.9',
      requires_dist: ['requests>=2', 'rich; extra == "cli"'],
      provides_extra: ['cli'],
      dynamic: ['Requires-Dist'],
      classifiers: ['Programming Language :: Python :: 3', 'License :: OSI Approved :: MIT License'],
      project_urls: { Homepage: 'https://foo.example', 'Issue Tracker': 'https://foo.example/issues?a=1,2' },
    } satisfies ReleaseMetadata);
  });

  it('reads an old PKG-INFO: folded Description header wins over the body, CRLF line ends', () => {
    const pkgInfo = [
      'Metadata-Version: 1.1',
      'Name: oldpkg',
      'version: 0.9',
      'Summary: UNKNOWN',
      'License: Line one',
      '        line two',
      'Description: First line',
      '        ',
      '        Indented:',
      '            code',
      '       |piped line',
      'Platform: UNKNOWN',
      '',
      'this body is not the description',
    ].join('\r\n');
    const m = parseCoreMetadata(pkgInfo);
    assert.equal(m.name, 'oldpkg');
    assert.equal(m.version, '0.9', 'field names are case-insensitive');
    assert.equal(m.summary, 'UNKNOWN');
    assert.equal(m.license, 'Line one\nline two');
    assert.equal(m.description, 'First line\n\nIndented:\n    code\npiped line');
    assert.equal(m.platform, 'UNKNOWN');
    assert.deepEqual(m.classifiers, []);
    assert.equal(m.requires_dist, null);
    assert.equal(m.provides_extra, null);
    assert.equal(m.dynamic, null);
    assert.equal(m.license_files, null);
    assert.equal(m.project_urls, null);
  });

  it('has no description when there is neither header nor body', () => {
    const m = parseCoreMetadata('Metadata-Version: 2.1\nName: x\nVersion: 1\nRequires-Python: \n');
    assert.equal(m.description, null);
    assert.equal(m.requires_python, null);
  });

  it('needs Name and Version', () => {
    assert.throws(() => parseCoreMetadata('Metadata-Version: 2.1\nVersion: 1\n'), /Name field is missing/);
    assert.throws(() => parseCoreMetadata('Metadata-Version: 2.1\nName: x\n'), /Version field is missing/);
    assert.throws(() => parseCoreMetadata('<html>Not Found</html>'), /Name field is missing/);
  });
});

describe('releasesFromPage', () => {
  it('groups the bs4 HTML page by version, with packagetype and python_version from the filenames', () => {
    const page = parseSimpleHtml(fixture('simple-project.beautifulsoup4.pypi-docs-excerpt.html'), {
      pageUrl: 'https://pypi.org/simple/beautifulsoup4/',
    });
    const metadata = new Map([['4.13.0b2', parseCoreMetadata('Name: beautifulsoup4\nVersion: 4.13.0b2\nSummary: Screen-scraping library\n')]]);
    const doc = releasesFromPage(page, metadata);
    assert.equal(doc.name, 'beautifulsoup4');
    assert.equal(doc.serial, 22406780);
    assert.deepEqual(
      doc.releases.map((r) => [r.version, r.files.length]),
      [
        ['4.0.1', 1],
        ['4.0.2', 1],
        ['4.13.0b2', 2],
      ],
    );
    const [, , beta] = doc.releases;
    assert.equal(beta!.metadata.summary, 'Screen-scraping library');
    assert.deepEqual(doc.releases[0]!.metadata, emptyMetadata('beautifulsoup4', '4.0.1'));
    assert.deepEqual(
      beta!.files.map((f) => [f.filename, f.packagetype, f.pythonVersion, f.comment]),
      [
        ['beautifulsoup4-4.13.0b2-py3-none-any.whl', 'bdist_wheel', 'py3', null],
        ['beautifulsoup4-4.13.0b2.tar.gz', 'sdist', 'source', null],
      ],
    );
    const whl = beta!.files[0]!;
    const { packagetype, pythonVersion, comment, ...entry } = whl;
    assert.deepEqual(entry, page.files[2], 'the file entry is carried over unchanged');
  });

  it('derives the yanked state of a release from its files', () => {
    const page = parseSimpleJson(fixture('simple-project.yanked.v1-json.pypi-capture.json'), {
      pageUrl: 'https://pypi.org/simple/yanked/',
    });
    const [r] = releasesFromPage(page).releases;
    assert.equal(r!.yanked, true);
    assert.equal(r!.yankedReason, 'not good');
  });

  it('keeps listed versions without files and matches differently spelled versions', () => {
    const file = (filename: string, version: string | null) => ({
      filename,
      version,
      sourceUrl: `https://f.example/${filename}`,
      hashes: {},
      requiresPython: null,
      yanked: false,
      yankedReason: null,
      coreMetadata: false as const,
      size: 10,
      uploadTime: null,
      hasSig: false,
    });
    const page: ProjectPage = {
      name: normalizeName('Thing'),
      displayName: 'Thing',
      serial: 4,
      files: [
        file('Thing-1.0RC1.tar.gz', '1.0RC1'),
        file('thing-1.0rc1-py2.py3-none-any.whl', '1.0rc1'),
        file('thing-2.0-py2.7.egg', '2.0'),
        file('thing-setup.exe', null),
      ],
      versions: ['0.5', '1.0rc1', '2.0'],
      origin: 'upstream',
    };
    const doc = releasesFromPage(page);
    assert.deepEqual(
      doc.releases.map((r) => [r.version, r.files.map((f) => f.filename)]),
      [
        ['0.5', []],
        ['1.0rc1', ['Thing-1.0RC1.tar.gz', 'thing-1.0rc1-py2.py3-none-any.whl']],
        ['2.0', ['thing-2.0-py2.7.egg']],
      ],
    );
    assert.equal(doc.releases[0]!.yanked, false, 'a release without files is not yanked');
    assert.deepEqual(
      doc.releases[2]!.files.map((f) => [f.packagetype, f.pythonVersion]),
      [['bdist_egg', '2.7']],
    );
    assert.equal(doc.releases[1]!.files[1]!.pythonVersion, 'py2.py3');
  });

  it('derives the same packagetype as PyPI for every requests file, and python_version except where PyPI kept the uploader’s', () => {
    const api = parseJsonApi(fixture('pypi-json-project.requests.json'), { pageUrl: 'https://pypi.org/pypi/requests/json' });
    const files = api.releases.flatMap((r) => r.files);
    const page: ProjectPage = {
      name: api.name,
      displayName: api.displayName,
      serial: api.serial,
      files: files.map(({ packagetype, pythonVersion, comment, ...entry }) => entry),
      versions: api.releases.map((r) => r.version),
      origin: 'upstream',
    };
    const built = releasesFromPage(page).releases.flatMap((r) => r.files);
    assert.equal(built.length, files.length);
    const upstream = new Map(files.map((f) => [f.filename, f]));
    const differing: string[] = [];
    for (const f of built) {
      const u = upstream.get(f.filename)!;
      assert.equal(f.packagetype, u.packagetype, f.filename);
      if (f.pythonVersion !== u.pythonVersion) {
        // Early wheels were uploaded with pyversion "2.7" though tagged py2.py3.
        assert.deepEqual([f.pythonVersion, u.pythonVersion], ['py2.py3', '2.7'], f.filename);
        differing.push(f.filename);
      }
    }
    assert.equal(differing.length, 18);
    assert.deepEqual(
      releasesFromPage(page).releases.map((r) => [r.version, r.files.length]),
      api.releases.map((r) => [r.version, r.files.length]),
    );
  });
});
