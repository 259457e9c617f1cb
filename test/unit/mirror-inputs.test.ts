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

// poetry.lock and pdm.lock were written by Debian's poetry 1.3.2 and pdm 2.2.1 (test/fixtures/locks/regenerate.ts).
// Neither version records a package's markers (lk-win is win32-only, lk-compat only below 3.12 in the project).
const LOCKED = [
  ['lk-compat', '0.5', ['lk_compat-0.5-py3-none-any.whl']],
  ['lk-extras', '1.0', ['lk_extras-1.0-py3-none-any.whl']],
  ['lk-pinned', '1.2.0', ['lk_pinned-1.2.0-py3-none-any.whl', 'lk_pinned-1.2.0.tar.gz']],
  ['lk-range', '2.1', ['lk_range-2.1-py3-none-any.whl']],
  ['lk-speedups', '1.1', ['lk_speedups-1.1-py3-none-any.whl']],
  ['lk-win', '306', ['lk_win-306-cp311-cp311-win_amd64.whl', 'lk_win-306-cp312-cp312-win_amd64.whl']],
];

test('poetry.lock (poetry 1.3.2): pins and hashes from a legacy source as locked; the directory dependency skipped', () => {
  const inputs = readInputs([], [fixture('poetry.lock')]);
  assert.deepEqual(
    inputs.locked.map((p) => [p.name, p.version, p.files?.map((f) => f.filename)]),
    LOCKED,
  );
  assert.equal(inputs.locked[2]!.files![1]!.sha256, 'fc9e671a05222748d7ab332b1b04c826560704790335df64ea490762ed7905c8');
  assert.ok(inputs.locked.every((p) => p.marker === undefined && p.files!.every((f) => f.sha256?.length === 64)));
  assert.deepEqual(inputs.skipped, [`${fixture('poetry.lock')}: lk-local 0.1.0: from a directory source, not an index; not mirrorable`]);
  assert.equal(inputs.requirements.length, 0, 'a lock file is not expanded');
});

test('pdm.lock (pdm 2.2.1): files by URL under [metadata.files]; the entry for an extra is not a second package; the path dependency skipped', () => {
  const inputs = readInputs([], [fixture('pdm.lock')]);
  assert.deepEqual(
    inputs.locked.map((p) => [p.name, p.version, p.files?.map((f) => f.filename) ?? null]),
    LOCKED,
  );
  assert.equal(inputs.locked[5]!.files![1]!.sha256, 'a3bb4290ccdf00afed0145fbd95ac290db3ff298f5ffc33b9efaf80c536d1da9');
  assert.ok(inputs.locked.every((p) => p.marker === undefined && p.files!.every((f) => f.sha256?.length === 64)));
  assert.deepEqual(inputs.skipped, [`${fixture('pdm.lock')}: lk-local: not from an index; not mirrorable`]);
});

test('poetry.lock (lock-version 2.1) and pdm.lock (4.5.0) of newer tools: markers per package, files in the package', () => {
  const py312 = markerEnvironment({ python: '3.12', platform: 'manylinux_2_17_x86_64' });
  for (const file of ['newer/poetry.lock', 'newer/pdm.lock']) {
    const [compat, win] = readInputs([], [fixture(file)]).locked;
    assert.deepEqual([compat!.name, win!.name, win!.files!.map((f) => f.sha256!.slice(0, 8))], ['lk-compat', 'lk-win', ['99e7e1e3', 'a3bb4290']], file);
    assert.ok(markerHolds(win!.marker, windows) && !markerHolds(win!.marker, linux), file);
    assert.ok(markerHolds(compat!.marker, linux) && !markerHolds(compat!.marker, py312), file);
  }
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
