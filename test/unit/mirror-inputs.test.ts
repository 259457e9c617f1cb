/** The mirror's input readers: requirements files and the four lock formats (fixtures in test/fixtures/locks). */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { lockKind, readInputs } from '../../src/mirror/inputs/read-inputs.js';
import { markerHolds } from '../../src/mirror/markers.js';
import { markerEnvironment } from '../../src/mirror/target.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/locks/${name}`, import.meta.url));
const linux = markerEnvironment({ python: '3.11', platform: 'manylinux_2_17_x86_64' });
const windows = markerEnvironment({ python: '3.11', platform: 'win_amd64' });

test('a requirements file: includes, constraints, extras, markers, hashes, continuations; URLs and editables skipped', () => {
  const inputs = readInputs([fixture('req/requirements.txt')], []);
  assert.deepEqual(
    inputs.requirements.map((r) => [r.name, r.specifier, r.extras]),
    [
      ['requests', '>=2.28', ['socks']],
      ['click', '==8.1.7', []],
      ['colorama', '', []],
    ],
  );
  assert.deepEqual(inputs.requirements[1]!.hashes, [
    'ae74fb96c20a0277a1d615f1e4d73c8414f5a98db8b799a7931d1582f3390c28',
    'ca9853ad459e787e2192211578cc907e7594e294c7ccc834310722b41b9ca6de',
  ]);
  assert.ok(markerHolds(inputs.requirements[2]!.marker, windows));
  assert.ok(!markerHolds(inputs.requirements[2]!.marker, linux));
  assert.deepEqual(
    inputs.constraints.map((c) => [c.name, c.specifier]),
    [['urllib3', '<2']],
  );
  assert.match(inputs.requirements[0]!.origin, /base\.txt:3$/);
  assert.equal(inputs.skipped.length, 2, inputs.skipped.join('\n'));
  assert.match(inputs.skipped.join('\n'), /editable/);
  assert.match(inputs.skipped.join('\n'), /path or URL/);
});

test('a requirements file that does not parse names its line', () => {
  assert.throws(() => readInputs([fixture('poetry.lock')], []), /poetry\.lock:\d+: cannot parse/);
});

test('poetry.lock: pins and hashes as locked; directory sources skipped', () => {
  const inputs = readInputs([], [fixture('poetry.lock')]);
  assert.deepEqual(
    inputs.locked.map((p) => [p.name, p.version, p.files?.map((f) => f.filename)]),
    [
      ['colorama', '0.4.6', ['colorama-0.4.6-py2.py3-none-any.whl', 'colorama-0.4.6.tar.gz']],
      ['requests', '2.31.0', ['requests-2.31.0-py3-none-any.whl']],
    ],
  );
  assert.equal(inputs.locked[1]!.files![0]!.sha256, '58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f');
  assert.equal(inputs.skipped.length, 1);
  assert.equal(inputs.requirements.length, 0, 'a lock file is not expanded');
});

test('pdm.lock: files under [metadata.files], markers, path packages skipped', () => {
  const inputs = readInputs([], [fixture('pdm.lock')]);
  assert.deepEqual(
    inputs.locked.map((p) => [p.name, p.version, p.files?.map((f) => f.filename) ?? null]),
    [
      ['colorama', '0.4.6', ['colorama-0.4.6-py2.py3-none-any.whl']],
      ['pywin32', '306', null],
    ],
  );
  assert.ok(markerHolds(inputs.locked[1]!.marker, windows) && !markerHolds(inputs.locked[1]!.marker, linux));
  assert.equal(inputs.skipped.length, 1);
});

test('uv.lock: registry packages with their wheels and sdist; the project itself left out, git reported', () => {
  const inputs = readInputs([], [fixture('uv.lock')]);
  assert.deepEqual(
    inputs.locked.map((p) => [p.name, p.version, p.files?.map((f) => [f.filename, f.sha256?.slice(0, 8)])]),
    [
      [
        'certifi',
        '2024.2.2',
        [
          ['certifi-2024.2.2-py3-none-any.whl', 'dc383c07'],
          ['certifi-2024.2.2.tar.gz', '0569859f'],
        ],
      ],
    ],
  );
  assert.equal(inputs.skipped.length, 1);
  assert.match(inputs.skipped[0]!, /from-git/);
});

test('pylock.toml: named and URL-only files, markers, directories reported', () => {
  const inputs = readInputs([], [fixture('pylock.toml')]);
  assert.deepEqual(
    inputs.locked.map((p) => [p.name, p.version, p.files?.map((f) => f.filename)]),
    [
      ['attrs', '25.1.0', ['attrs-25.1.0-py3-none-any.whl']],
      [
        'numpy',
        '2.2.3',
        ['numpy-2.2.3-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl', 'numpy-2.2.3-cp311-cp311-win_amd64.whl', 'numpy-2.2.3.tar.gz'],
      ],
    ],
  );
  assert.ok(markerHolds(inputs.locked[1]!.marker, linux));
  assert.equal(inputs.skipped.length, 1);
});

test('lock kinds by file name', () => {
  assert.equal(lockKind('/x/pylock.toml'), 'pylock');
  assert.equal(lockKind('/x/pylock.dev.toml'), 'pylock');
  assert.equal(lockKind('poetry.lock'), 'poetry');
  assert.equal(lockKind('uv.lock'), 'uv');
  assert.equal(lockKind('pdm.lock'), 'pdm');
  assert.throws(() => lockKind('Pipfile.lock'), /cannot tell which lock format/);
});
