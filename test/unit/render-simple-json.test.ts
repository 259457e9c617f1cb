import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Hashes, ProjectPage } from '../../src/model/documents.js';
import { normalizeName } from '../../src/model/names.js';
import { fileEntry, projectPage, SHA } from '../helpers/model-builders.js';
import { renderProjectJson, renderRootJson, renderRootJsonChunks } from '../../src/render/simple-json.js';
import { toWireJson } from '../../src/render/json-wire.js';
import { FROM_PROJECT_PAGE } from '../../src/render/urls.js';

const FIXTURES = new URL('../fixtures/spec/', import.meta.url);
const fixtureJson = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));

const BASE = 'http://larder.test:3142';
const UPLOAD_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

const file = fileEntry;
const page = projectPage;

type JsonFile = Record<string, unknown>;
const render = (p: ProjectPage) => JSON.parse(renderProjectJson(p, BASE));

/** A model page from a PEP 691 document, as an upstream source would build it. */
function pageFromPypiJson(doc: { name: string; files: JsonFile[]; versions?: string[]; meta: { '_last-serial'?: number } }) {
  return page(
    doc.files.map((f) =>
      file(f.filename as string, {
        hashes: f.hashes as Hashes,
        requiresPython: (f['requires-python'] as string | null | undefined) ?? null,
        yanked: Boolean(f.yanked),
        yankedReason: typeof f.yanked === 'string' ? f.yanked : null,
        coreMetadata: (f['core-metadata'] as Hashes | boolean | undefined) ?? false,
        size: (f.size as number | undefined) ?? null,
        uploadTime: (f['upload-time'] as string | undefined) ?? null,
        ...('provenance' in f ? { provenance: f.provenance as string | null } : {}),
      }),
    ),
    { name: normalizeName(doc.name), displayName: doc.name, serial: doc.meta['_last-serial'] ?? 0, versions: doc.versions ?? [] },
  );
}

const withoutUrl = ({ url: _url, ...rest }: JsonFile) => rest;

test('fixture attrs (api 1.4): output equals PyPI document apart from file URLs and alternate-locations', () => {
  const original = fixtureJson('simple-project.attrs.v1-json.poetry-generated.json');
  const ours = render(pageFromPypiJson(original));
  const { 'alternate-locations': _dropped, ...expected } = original;
  assert.deepEqual({ ...ours, files: ours.files.map(withoutUrl) }, { ...expected, files: expected.files.map(withoutUrl) });
  assert.equal(ours.files[0].url, `${BASE}/packages/attrs/attrs-17.4.0-py2.py3-none-any.whl`);
  assert.ok(!('alternate-locations' in ours));
});

test('fixture markus (real, api 1.1): same files and versions; "" requires-python becomes null', () => {
  const original = fixtureJson('simple-project.markus.v1-json.pypi-capture.json');
  const ours = render(pageFromPypiJson(original));
  assert.equal(ours.name, 'markus');
  assert.deepEqual(ours.meta, { '_last-serial': 17515287, 'api-version': '1.4' });
  assert.deepEqual(new Set(ours.versions), new Set(original.versions));
  assert.equal(ours.files.length, original.files.length);
  for (const [i, expected] of (original.files as JsonFile[]).entries()) {
    const requiresPython = expected['requires-python'] === '' ? null : expected['requires-python'];
    assert.deepEqual(withoutUrl(ours.files[i]), { ...withoutUrl(expected), 'requires-python': requiresPython });
  }
  assert.deepEqual(ours['project-status'], { status: 'active' });
  assert.ok(ours.files.some((f: JsonFile) => f['requires-python'] === null));
});

test('fixture yanked: true and "reason" come through', () => {
  const original = fixtureJson('simple-project.yanked.v1-json.pypi-capture.json');
  const ours = render(pageFromPypiJson(original));
  assert.deepEqual(
    ours.files.map((f: JsonFile) => [f.filename, f.yanked]),
    [
      ['yanked-0.0.0-py3-none-any.whl', true],
      ['yanked-0.0.0.tar.gz', 'not good'],
    ],
  );
});

test('normalized name; filename, url, hashes ({} allowed), integer size; versions hold every file version once', () => {
  const ours = render(
    page([file('demo_pkg-1.0.tar.gz', { hashes: {} }), file('demo_pkg-1.0-py3-none-any.whl'), file('Demo.Pkg-2.0.tar.gz')], { versions: ['0.9', '1.0'] }),
  );
  assert.equal(ours.name, 'demo-pkg');
  for (const f of ours.files) {
    assert.equal(typeof f.filename, 'string');
    assert.equal(typeof f.url, 'string');
    assert.equal(typeof f.hashes, 'object');
    assert.ok(Number.isInteger(f.size));
  }
  assert.deepEqual(ours.files.find((f: JsonFile) => f.filename === 'demo_pkg-1.0.tar.gz').hashes, {});
  assert.deepEqual(ours.versions, ['0.9', '1.0', '2.0']);
});

test('hashes: only names hashlib guarantees, lowercase; blake2b_256 is left out', () => {
  const ours = render(page([file('demo_pkg-1.0.tar.gz', { hashes: { md5: 'AB12', sha256: SHA, blake2b_256: 'c'.repeat(64) } })]));
  assert.deepEqual(ours.files[0].hashes, { md5: 'ab12', sha256: SHA });
});

test('upload-time in YYYY-MM-DDTHH:MM:SS(.ffffff)Z; other UTC spellings are converted; unknown is left out', () => {
  const cases: [string | null, string | undefined][] = [
    ['2024-01-17T16:53:12.779164Z', '2024-01-17T16:53:12.779164Z'],
    ['2024-01-17T16:53:12Z', '2024-01-17T16:53:12Z'],
    ['2024-01-17T16:53:12.779164+00:00', '2024-01-17T16:53:12.779164Z'],
    ['2024-01-17 16:53:12.1234567', '2024-01-17T16:53:12.123456Z'],
    ['2024-01-17T18:53:12+02:00', '2024-01-17T16:53:12.000Z'],
    ['not a time', undefined],
    [null, undefined],
  ];
  for (const [input, expected] of cases) {
    const [f] = render(page([file('demo_pkg-1.0.tar.gz', { uploadTime: input })])).files;
    assert.equal(f['upload-time'], expected, String(input));
    if (expected) assert.match(expected, UPLOAD_TIME);
    else assert.ok(!('upload-time' in f));
  }
});

test('yanked is false, true or a non-empty reason; requires-python string or null', () => {
  const ours = render(
    page([
      file('demo_pkg-1.0.tar.gz', { yanked: true, yankedReason: '' }),
      file('demo_pkg-2.0.tar.gz', { yanked: true, yankedReason: 'bad build' }),
      file('demo_pkg-3.0.tar.gz', { yanked: false, yankedReason: 'stale reason', requiresPython: '>=3.8,<4' }),
    ]),
  );
  assert.deepEqual(
    ours.files.map((f: JsonFile) => [f.yanked, f['requires-python']]),
    [
      [true, null],
      ['bad build', null],
      [false, '>=3.8,<4'],
    ],
  );
});

test('core-metadata false / hash dict / true, mirrored in data-dist-info-metadata; never dist-info-metadata', () => {
  const text = renderProjectJson(
    page([
      file('demo_pkg-1.0-py3-none-any.whl', { coreMetadata: { sha256: 'b'.repeat(64), blake2b_256: 'c'.repeat(64) } }),
      file('demo_pkg-1.0.tar.gz'),
      file('demo_pkg-2.0-py3-none-any.whl', { coreMetadata: true }),
      file('demo_pkg-3.0-py3-none-any.whl', { coreMetadata: { blake2b_256: 'c'.repeat(64) } }),
    ]),
    BASE,
  );
  assert.doesNotMatch(text, /"dist-info-metadata"/);
  const files = JSON.parse(text).files as JsonFile[];
  assert.deepEqual(
    files.map((f) => [f['core-metadata'], f['data-dist-info-metadata']]),
    [
      [{ sha256: 'b'.repeat(64) }, { sha256: 'b'.repeat(64) }],
      [false, false],
      [true, true],
      [true, true],
    ],
  );
});

test('project-status at top level, default active; no alternate-locations or meta.tracks', () => {
  const active = render(page([]));
  assert.deepEqual(active['project-status'], { status: 'active' });
  assert.ok(!('project-status' in active.meta));
  const archived = render(page([], { status: { status: 'quarantined', reason: 'malware' } }));
  assert.deepEqual(archived['project-status'], { status: 'quarantined', reason: 'malware' });
  const text = renderProjectJson(page([file('demo_pkg-1.0.tar.gz')]), BASE);
  assert.doesNotMatch(text, /alternate-locations|tracks/);
});

test('provenance key present exactly when the model has it', () => {
  const prov = 'https://pypi.org/integrity/demo-pkg/1.0/demo_pkg-1.0.tar.gz/provenance';
  const files = render(
    page([file('demo_pkg-1.0.tar.gz', { provenance: prov }), file('demo_pkg-2.0.tar.gz', { provenance: null }), file('demo_pkg-3.0.tar.gz')]),
  ).files as JsonFile[];
  assert.equal(files[0]!.provenance, prov);
  assert.equal(files[1]!.provenance, null);
  assert.ok(!('provenance' in files[2]!));
});

test('a file of unknown size has no size key, and the page then claims api-version 1.0', () => {
  const ours = render(page([file('demo_pkg-1.0.tar.gz', { size: null }), file('demo_pkg-2.0.tar.gz')]));
  assert.equal(ours.meta['api-version'], '1.0');
  assert.ok(!('size' in ours.files[0]));
  assert.equal(ours.files[1].size, 100);
  assert.equal(render(page([file('demo_pkg-2.0.tar.gz', { size: 0 })])).meta['api-version'], '1.4');
});

test('file URLs are absolute larder URLs with encoded filenames; files sorted by version then filename', () => {
  const ours = render(page([file('demo_pkg-1.10.tar.gz'), file('demo_pkg-1.0+local-py3-none-any.whl'), file('demo_pkg-1.9.tar.gz')]));
  assert.deepEqual(
    ours.files.map((f: JsonFile) => f.url),
    [
      `${BASE}/packages/demo-pkg/demo_pkg-1.0%2Blocal-py3-none-any.whl`,
      `${BASE}/packages/demo-pkg/demo_pkg-1.9.tar.gz`,
      `${BASE}/packages/demo-pkg/demo_pkg-1.10.tar.gz`,
    ],
  );
});

test('file URLs relative to the page (no LARDER_PUBLIC_URL) resolve to /packages/ under the host and prefix the page came from', () => {
  const [f] = JSON.parse(renderProjectJson(page([file('demo_pkg-1.0.tar.gz')]), FROM_PROJECT_PAGE)).files;
  assert.equal(f.url, '../../packages/demo-pkg/demo_pkg-1.0.tar.gz');
  assert.equal(new URL(f.url, 'http://larder.test:3142/simple/demo-pkg/').href, 'http://larder.test:3142/packages/demo-pkg/demo_pkg-1.0.tar.gz');
  assert.equal(new URL(f.url, 'https://proxy.example/pypi/simple/demo-pkg/').href, 'https://proxy.example/pypi/packages/demo-pkg/demo_pkg-1.0.tar.gz');
});

test('wire format: sorted keys, compact, raw UTF-8, trailing newline', () => {
  const text = renderProjectJson(page([file('demo_pkg-1.0.tar.gz', { yanked: true, yankedReason: 'kaputt – ü' })]), BASE);
  assert.ok(text.endsWith('}\n'));
  assert.ok(text.startsWith('{"files":[{"core-metadata":false,"data-dist-info-metadata":false,"filename":'));
  assert.match(text, /"meta":\{"_last-serial":42,"api-version":"1\.4"\},"name":"demo-pkg","project-status":\{"status":"active"\},"versions":\["1\.0"\]\}\n$/);
  assert.ok(text.includes('"yanked":"kaputt – ü"'));
  assert.doesNotMatch(text, /\\u/);
  assert.doesNotMatch(text, /[:,] /);
});

test('toWireJson matches Python json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)', () => {
  // Integer-like keys sort as strings, not first as JS enumerates them.
  assert.equal(toWireJson({ b: 1, '10': 2, '2': 3, a: [{ z: null, y: true }] }), '{"10":2,"2":3,"a":[{"y":true,"z":null}],"b":1}\n');
  // Code point order: U+1F600 (astral) sorts after U+FFFD.
  assert.equal(toWireJson({ '\u{1F600}': 1, '\uFFFD': 2 }), '{"\uFFFD":2,"\u{1F600}":1}\n');
  assert.equal(toWireJson({ s: 'a"b\\c\n\u001f\u2028é/' }), '{"s":"a\\"b\\\\c\\n\\u001f\u2028é/"}\n');
  assert.equal(toWireJson({ skip: undefined, keep: 0 }), '{"keep":0}\n');
});

test('root JSON is valid, with meta._last-serial, api-version and projects[]._last-serial', async () => {
  const fixture = fixtureJson('simple-root.pypi-docs-excerpt.v1-json.json');
  const projects = (fixture.projects as unknown[]).filter((p): p is { name: string; '_last-serial': number } => typeof p === 'object');
  const text = await renderRootJson(
    projects.map((p) => ({ name: p.name, serial: p['_last-serial'] })),
    fixture.meta['_last-serial'],
  );
  assert.deepEqual(JSON.parse(text), { ...fixture, projects });
  assert.ok(text.startsWith('{"meta":{"_last-serial":24888689,"api-version":"1.4"},"projects":[{"_last-serial":3075854,"name":"0"},'));
  assert.ok(text.endsWith(']}\n'));
});

test('root JSON chunks join to valid JSON for 0, 1 and 2500 projects; serial left out when unknown', async () => {
  assert.deepEqual(JSON.parse(await renderRootJson([], 7)), { meta: { '_last-serial': 7, 'api-version': '1.4' }, projects: [] });
  assert.deepEqual(JSON.parse(await renderRootJson([{ name: 'Foo.Bar' }], 7)).projects, [{ name: 'Foo.Bar' }]);

  async function* many() {
    for (let i = 0; i < 2500; i++) yield { name: `p${i}`, serial: i };
  }
  const chunks: string[] = [];
  for await (const chunk of renderRootJsonChunks(many(), 9)) chunks.push(chunk);
  assert.equal(chunks.length, 5);
  const doc = JSON.parse(chunks.join(''));
  assert.equal(doc.projects.length, 2500);
  assert.deepEqual(doc.projects[2499], { '_last-serial': 2499, name: 'p2499' });
});
