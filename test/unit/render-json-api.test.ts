import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ProjectReleases, Release, ReleaseFile, ReleaseMetadata, Vulnerability } from '../../src/model/documents.js';
import { normalizeName } from '../../src/model/names.js';
import {
  PIECE_CHARS,
  projectJsonTemplatePieces,
  releaseJsonTemplatePieces,
  renderProjectJson,
  renderProjectJsonTemplate,
  renderReleaseJson,
} from '../../src/render/json-api.js';
import { fillBase, fillBaseBytes, toWireJson } from '../../src/render/json-wire.js';
import { findRelease, latestRelease } from '../../src/model/release-choice.js';

const FIXTURES = new URL('../fixtures/spec/', import.meta.url);
const fixtureJson = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));

const BASE = 'http://larder.test:3142';

type Json = Record<string, any>;

/** Fields larder's service interface types "string, may be empty" and PyPI sends null (docs/index-api.md). */
const EMPTY_STRING_INFO = ['author', 'author_email', 'bugtrack_url', 'description', 'download_url', 'home_page', 'keywords', 'license', 'platform', 'summary'];
const URL_INFO = ['package_url', 'project_url', 'release_url'];

function metadataFrom(info: Json): ReleaseMetadata {
  const pick = <K extends keyof ReleaseMetadata>(key: K): ReleaseMetadata[K] => info[key] ?? null;
  return {
    name: info.name,
    version: info.version,
    summary: pick('summary'),
    description: pick('description'),
    description_content_type: pick('description_content_type'),
    author: pick('author'),
    author_email: pick('author_email'),
    maintainer: pick('maintainer'),
    maintainer_email: pick('maintainer_email'),
    license: pick('license'),
    license_expression: pick('license_expression'),
    license_files: pick('license_files'),
    keywords: pick('keywords'),
    home_page: pick('home_page'),
    download_url: pick('download_url'),
    platform: pick('platform'),
    requires_python: pick('requires_python'),
    requires_dist: pick('requires_dist'),
    provides_extra: pick('provides_extra'),
    dynamic: pick('dynamic'),
    classifiers: info.classifiers ?? [],
    project_urls: pick('project_urls'),
  };
}

function fileFrom(version: string, f: Json): ReleaseFile {
  return {
    filename: f.filename,
    version,
    sourceUrl: f.url,
    hashes: { md5: f.digests.md5, sha256: f.digests.sha256, blake2b_256: f.digests.blake2b_256 },
    requiresPython: f.requires_python,
    yanked: f.yanked,
    yankedReason: f.yanked_reason,
    coreMetadata: false,
    size: f.size,
    uploadTime: f.upload_time_iso_8601,
    hasSig: f.has_sig,
    packagetype: f.packagetype,
    pythonVersion: f.python_version,
    comment: f.comment_text,
  };
}

function releaseFrom(version: string, files: Json[], info: Json): Release {
  const yanked = files.length > 0 && files.every((f) => f.yanked);
  return {
    version,
    metadata: metadataFrom({ ...info, version }),
    yanked,
    yankedReason: yanked ? files[0]!.yanked_reason : null,
    files: files.map((f) => fileFrom(version, f)),
  };
}

/** ProjectReleases from PyPI's project document; every release gets the latest release's metadata. */
function requestsProject(): { doc: ProjectReleases; original: Json } {
  const original = fixtureJson('pypi-json-project.requests.json');
  const releases = Object.entries(original.releases as Record<string, Json[]>).map(([v, files]) => releaseFrom(v, files, original.info));
  const doc: ProjectReleases = {
    name: normalizeName('requests'),
    displayName: 'requests',
    serial: original.last_serial,
    releases,
    vulnerabilities: {},
  };
  return { doc, original };
}

/** The file dict PyPI would send, with larder's URL and the service interface's "" for comment_text. */
function expectedFile(f: Json): Json {
  return { ...f, url: `${BASE}/packages/requests/${f.filename}`, comment_text: f.comment_text ?? '', 'core-metadata': false };
}

function assertSameType(actual: unknown, expected: unknown, key: string) {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  assert.equal(kind(actual), kind(expected), `type of ${key}`);
}

test("fixture requests: the project document has every key of PyPI's, with the same values apart from larder's decisions", () => {
  const { doc, original } = requestsProject();
  const ours = JSON.parse(renderProjectJson(doc, BASE)!);
  assert.deepEqual(Object.keys(ours).sort(), ['info', 'last_serial', 'releases', 'urls', 'vulnerabilities']);
  assert.equal(ours.last_serial, 29525769);

  for (const [key, value] of Object.entries(original.info as Json)) {
    assert.ok(key in ours.info, `info.${key} missing`);
    if (EMPTY_STRING_INFO.includes(key)) {
      assert.equal(ours.info[key], value ?? '', `info.${key}`);
    } else if (URL_INFO.includes(key)) {
      assert.equal(typeof ours.info[key], 'string');
    } else {
      assertSameType(ours.info[key], value, `info.${key}`);
      assert.deepEqual(ours.info[key], value, `info.${key}`);
    }
  }
  assert.equal(ours.info.package_url, `${BASE}/project/requests/`);
  assert.equal(ours.info.project_url, `${BASE}/project/requests/`);
  assert.equal(ours.info.release_url, `${BASE}/project/requests/2.32.4/`);

  assert.deepEqual(ours.urls, original.urls.map(expectedFile));
  assert.deepEqual(Object.keys(ours.releases).sort(), Object.keys(original.releases).sort());
  for (const [version, files] of Object.entries(original.releases as Record<string, Json[]>)) {
    assert.deepEqual(ours.releases[version], files.map(expectedFile), `releases[${version}]`);
  }
  assert.deepEqual(ours.vulnerabilities, []);
});

test('one rendering serves every base: the URLs are filled in, text that looks like a mark is not', () => {
  const { doc } = requestsProject();
  const latest = doc.releases.find((r) => r.version === '2.32.4')!;
  const tricky: ProjectReleases = {
    ...doc,
    releases: doc.releases.map((r) => (r === latest ? { ...r, metadata: { ...r.metadata, summary: 'NUL \u0000 and é, then \\u0000' } } : r)),
  };
  const template = renderProjectJsonTemplate(tricky)!;
  const bases = ['http://other.example:1234', 'https://index.example/pypi/'];
  const [one, two] = bases.map((base) => JSON.parse(fillBase(template, base)));
  assert.equal(one.info.summary, 'NUL \u0000 and é, then \\u0000');
  assert.equal(two.info.summary, one.info.summary);
  assert.equal(one.info.release_url, 'http://other.example:1234/project/requests/2.32.4/');
  assert.equal(two.info.release_url, 'https://index.example/pypi/project/requests/2.32.4/');
  assert.ok(one.urls[0].url.startsWith('http://other.example:1234/packages/requests/'), one.urls[0].url);
  assert.deepEqual(
    { ...one, info: { ...one.info, package_url: 0, project_url: 0, release_url: 0 }, urls: 0, releases: 0 },
    {
      ...two,
      info: { ...two.info, package_url: 0, project_url: 0, release_url: 0 },
      urls: 0,
      releases: 0,
    },
  );
  assert.equal(fillBase(template, bases[0]!), renderProjectJson(tricky, bases[0]!));
  assert.ok(fillBaseBytes(Buffer.from(template), bases[0]!).equals(Buffer.from(fillBase(template, bases[0]!))), 'the same on bytes');
});

test('versions without files map to []', () => {
  const { doc } = requestsProject();
  const ours = JSON.parse(renderProjectJson(doc, BASE)!);
  for (const version of ['0.0.1', '0.12.01', '2.15.0']) assert.deepEqual(ours.releases[version], []);
});

test('the service interface wins over pypi.org (docs/index-api.md): "" for "may be empty" strings, bugtrack_url "", project_urls {}, lists null', () => {
  const release: Release = {
    version: '1.0',
    metadata: metadataFrom({ name: 'Demo', version: '1.0', requires_dist: [], provides_extra: [], dynamic: [], license_files: [], requires_python: '' }),
    yanked: false,
    yankedReason: '',
    files: [],
  };
  const doc: ProjectReleases = { name: normalizeName('Demo'), displayName: 'Demo', serial: 1, releases: [release] };
  const { info, urls } = JSON.parse(renderProjectJson(doc, BASE)!);
  for (const key of EMPTY_STRING_INFO) assert.equal(info[key], '', key);
  assert.deepEqual(info.classifiers, []);
  assert.deepEqual(info.project_urls, {});
  for (const key of [
    'requires_dist',
    'provides_extra',
    'dynamic',
    'license_files',
    'requires_python',
    'docs_url',
    'yanked_reason',
    'maintainer',
    'license_expression',
    'description_content_type',
  ]) {
    assert.equal(info[key], null, key);
  }
  assert.deepEqual(info.downloads, { last_day: -1, last_month: -1, last_week: -1 });
  assert.equal(info.name, 'Demo');
  assert.equal(info.package_url, `${BASE}/project/demo/`);
  assert.deepEqual(urls, []);
});

function release(version: string, yanked = false, files: ReleaseFile[] = []): Release {
  return { version, metadata: metadataFrom({ name: 'demo', version }), yanked, yankedReason: yanked ? 'bad' : null, files };
}

const versionsOf = (...rs: Release[]) => latestRelease(rs)?.version;

test('latest is the highest non-yanked final, else non-yanked pre-release, else yanked (finals first)', () => {
  assert.equal(versionsOf(release('1.0'), release('1.10'), release('1.9'), release('2.0rc1'), release('3.0', true)), '1.10');
  assert.equal(versionsOf(release('1.0', true), release('2.0b1'), release('2.0a1'), release('1.5.dev1')), '2.0b1');
  assert.equal(versionsOf(release('1.0', true), release('0.9', true), release('2.0b1', true)), '1.0');
  assert.equal(versionsOf(release('1.0.post1'), release('1.0')), '1.0.post1');
  assert.equal(versionsOf(release('not-a-version'), release('0.1')), '0.1');
  assert.equal(latestRelease([]), null);
  assert.equal(renderProjectJson({ name: normalizeName('x'), displayName: 'x', serial: 1, releases: [] }, BASE), null);
});

test('version lookup by exact string, else the unique canonical match', () => {
  const rs = [release('1.0.0'), release('2.0'), release('2.0.0'), release('3.0rc1')];
  assert.equal(findRelease(rs, '1.0')?.version, '1.0.0');
  assert.equal(findRelease(rs, '1')?.version, '1.0.0');
  assert.equal(findRelease(rs, '2.0.0')?.version, '2.0.0');
  assert.equal(findRelease(rs, '2.0')?.version, '2.0');
  assert.equal(findRelease(rs, '2'), null, 'ambiguous canonical match');
  assert.equal(findRelease(rs, '3.0-rc.1')?.version, '3.0rc1');
  assert.equal(findRelease(rs, '4.0'), null);
});

test('fixture requests 2.31.0: release document matches PyPI (info, urls, vulnerabilities); releases listed; no project_urls', () => {
  const original = fixtureJson('pypi-json-release.requests-2.31.0.json');
  const { doc } = requestsProject();
  const index = doc.releases.findIndex((r) => r.version === '2.31.0');
  doc.releases[index] = releaseFrom('2.31.0', original.urls, original.info);
  doc.vulnerabilities = { '2.31.0': original.vulnerabilities as Vulnerability[] };

  const text = renderReleaseJson(doc, '2.31.0', BASE)!;
  const ours = JSON.parse(text);
  assert.deepEqual(Object.keys(ours).sort(), ['info', 'last_serial', 'releases', 'urls', 'vulnerabilities']);
  assert.ok(!('project_urls' in ours.info));
  for (const [key, value] of Object.entries(original.info as Json)) {
    if (key === 'project_urls') continue;
    assert.ok(key in ours.info, `info.${key} missing`);
    if (EMPTY_STRING_INFO.includes(key)) assert.equal(ours.info[key], value ?? '', `info.${key}`);
    else if (!URL_INFO.includes(key)) assert.deepEqual(ours.info[key], value, `info.${key}`);
  }
  assert.equal(ours.info.version, '2.31.0');
  assert.equal(ours.info.release_url, `${BASE}/project/requests/2.31.0/`);
  assert.deepEqual(ours.urls, original.urls.map(expectedFile));
  assert.deepEqual(ours.vulnerabilities, original.vulnerabilities);
  assert.ok(Object.keys(ours.releases).includes('2.32.4'));
  assert.equal(JSON.parse(renderReleaseJson(doc, '2.31', BASE)!).info.version, '2.31.0');
  assert.equal(renderReleaseJson(doc, '9.9.9', BASE), null);
});

function file(filename: string, extra: Partial<ReleaseFile> = {}): ReleaseFile {
  return {
    filename,
    version: '1.0',
    sourceUrl: `/packages/demo/${filename}`,
    hashes: { sha256: 'a'.repeat(64) },
    requiresPython: null,
    yanked: false,
    yankedReason: null,
    coreMetadata: false,
    size: null,
    uploadTime: null,
    hasSig: false,
    packagetype: 'sdist',
    pythonVersion: 'source',
    comment: null,
    ...extra,
  };
}

test('file dicts carry digests, both upload times, yanked state, packagetype, python_version, requires_python', () => {
  const doc: ProjectReleases = {
    name: normalizeName('Demo'),
    displayName: 'Demo',
    serial: 3,
    releases: [
      {
        ...release('1.0+cu121', true),
        metadata: { ...metadataFrom({ name: 'Demo', version: '1.0+cu121' }), requires_python: '>=3.9' },
        files: [
          file('demo-1.0+cu121.tar.gz', {
            requiresPython: '>=3.9',
            hashes: { md5: 'b'.repeat(32), sha256: 'a'.repeat(64), blake2b_256: 'c'.repeat(64) },
            size: 1234,
            uploadTime: '2025-06-09T16:43:05.728107Z',
            comment: 'hi',
            hasSig: true,
            coreMetadata: { sha256: 'd'.repeat(64) },
          }),
          file('demo-1.0+cu121-py3-none-any.whl', { packagetype: 'bdist_wheel', pythonVersion: 'py3', requiresPython: '>=3.10' }),
        ],
      },
    ],
  };
  const ours = JSON.parse(renderProjectJson(doc, BASE)!);
  const [whl, sdist] = ours.urls;
  assert.deepEqual(sdist, {
    comment_text: 'hi',
    'core-metadata': { sha256: 'd'.repeat(64) },
    digests: { blake2b_256: 'c'.repeat(64), md5: 'b'.repeat(32), sha256: 'a'.repeat(64) },
    downloads: -1,
    filename: 'demo-1.0+cu121.tar.gz',
    has_sig: true,
    md5_digest: 'b'.repeat(32),
    packagetype: 'sdist',
    python_version: 'source',
    requires_python: '>=3.9',
    size: 1234,
    upload_time: '2025-06-09T16:43:05',
    upload_time_iso_8601: '2025-06-09T16:43:05.728107Z',
    url: `${BASE}/packages/demo/demo-1.0%2Bcu121.tar.gz`,
    yanked: true,
    yanked_reason: 'bad',
  });
  // What larder cannot know is null, never a made-up 0 or "" (pypi.org never sends an empty digest).
  assert.deepEqual(whl.digests, { blake2b_256: null, md5: null, sha256: 'a'.repeat(64) });
  assert.equal(whl.md5_digest, null);
  assert.equal(whl.size, null);
  assert.equal(whl.upload_time, null);
  assert.equal(whl.upload_time_iso_8601, null);
  assert.equal(whl.requires_python, '>=3.10');
  assert.equal(whl.python_version, 'py3');
  assert.equal(ours.info.yanked, true);
  assert.equal(ours.info.yanked_reason, 'bad');
  assert.equal(ours.info.release_url, `${BASE}/project/demo/1.0%2Bcu121/`);
});

test('a yanked file of a non-yanked release stays flagged', () => {
  const doc: ProjectReleases = {
    name: normalizeName('demo'),
    displayName: 'demo',
    serial: 1,
    releases: [{ ...release('1.0'), files: [file('demo-1.0.tar.gz', { yanked: true, yankedReason: '' })] }],
  };
  const [f] = JSON.parse(renderProjectJson(doc, BASE)!).urls;
  assert.equal(f.yanked, true);
  assert.equal(f.yanked_reason, null);
});

test('vulnerabilities come from the described version; ownership appears with owners first', () => {
  const vuln: Vulnerability = {
    id: 'X-1',
    source: 'osv',
    link: 'https://osv.dev/X-1',
    aliases: [],
    details: 'd',
    summary: null,
    fixed_in: ['2.0'],
    withdrawn: null,
  };
  const doc: ProjectReleases = {
    name: normalizeName('demo'),
    displayName: 'demo',
    serial: 1,
    releases: [release('1.0'), release('2.0')],
    vulnerabilities: { '1.0': [vuln] },
    ownership: {
      roles: [
        { role: 'Maintainer', user: 'alice' },
        { role: 'Owner', user: 'zed' },
        { role: 'Owner', user: 'bob' },
      ],
      organization: null,
    },
  };
  const latest = JSON.parse(renderProjectJson(doc, BASE)!);
  assert.deepEqual(latest.vulnerabilities, []);
  assert.deepEqual(
    latest.ownership.roles.map((r: Json) => r.user),
    ['bob', 'zed', 'alice'],
  );
  assert.equal(latest.ownership.organization, null);
  assert.deepEqual(JSON.parse(renderReleaseJson(doc, '1.0', BASE)!).vulnerabilities, [vuln]);
  delete doc.ownership;
  assert.ok(!('ownership' in JSON.parse(renderProjectJson(doc, BASE)!)));
});

test('wire format: sorted keys (releases by string order), trailing newline', () => {
  const doc: ProjectReleases = { name: normalizeName('demo'), displayName: 'demo', serial: 1, releases: [release('10'), release('9'), release('1.0')] };
  const text = renderProjectJson(doc, BASE)!;
  assert.ok(text.endsWith('}\n'));
  assert.ok(text.startsWith('{"info":{"author":"","author_email":"",'));
  assert.match(text, /"releases":\{"1\.0":\[\],"10":\[\],"9":\[\]\},"urls":\[\],"vulnerabilities":\[\]\}\n$/);
});

test('a document of many releases is made in bounded pieces that join into its wire form', () => {
  const files = (version: string, tag: string) => [
    file(`demo-${version}.tar.gz`, { version, comment: tag }),
    file(`demo-${version}-py3-none-any.whl`, { version }),
  ];
  const releases = Array.from({ length: 1_200 }, (_, i) => release(`1.${i}`, false, files(`1.${i}`, 'first')));
  // Keys that sort differently by UTF-16 unit and by code point, integer-like keys, and a version listed twice (the last counts).
  releases.push(release('1.0+\u{1F600}'), release('1.0+\uFFFD'), release('10'), release('9'), release('1.7', false, files('1.7', 'again')));
  const ownership = { roles: [{ role: 'Owner' as const, user: 'bob' }], organization: null };
  const doc: ProjectReleases = { name: normalizeName('demo'), displayName: 'demo', serial: 7, releases, ownership };
  for (const pieces of [projectJsonTemplatePieces(doc)!, releaseJsonTemplatePieces(doc, '1.5')!]) {
    const all = [...pieces];
    assert.ok(all.length >= 4, `${all.length} pieces`);
    for (const piece of all) assert.ok(piece.length < 2 * PIECE_CHARS, `a piece of ${piece.length} characters`);
    const text = fillBase(all.join(''), BASE);
    const parsed = JSON.parse(text) as Json;
    assert.equal(toWireJson(parsed), text, 'sorted keys, no spaces, one trailing newline: what one serialization of the whole gives');
    assert.equal(Object.keys(parsed.releases).length, 1_204);
    // By filename: the wheel, then the sdist.
    assert.deepEqual(
      parsed.releases['1.7'].map((f: Json) => f.comment_text),
      ['', 'again'],
    );
    assert.deepEqual(parsed.ownership, ownership);
  }
  assert.equal([...projectJsonTemplatePieces(doc)!].join(''), renderProjectJsonTemplate(doc));
  assert.equal(JSON.parse(renderReleaseJson(doc, '1.5', BASE)!).info.version, '1.5');
});
