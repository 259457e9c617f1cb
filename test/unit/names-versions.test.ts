import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidProjectName, normalizeName } from '../../src/model/names.js';
import * as pep440 from '@renovatebot/pep440';
import { canonicalVersion, compareVersions, isPrerelease, isValidVersion, normalizeVersion, OrderedVersion } from '../../src/model/versions.js';
import { parseSdistFilename, parseWheelFilename } from '../../src/model/filenames.js';

test('names normalize per PEP 503', () => {
  assert.equal(normalizeName('FrIeNdLy-._.-bArD'), 'friendly-bard');
  assert.equal(normalizeName('Acme.Widgets'), 'acme-widgets');
});

test('name validation rejects a trailing newline and bad edges', () => {
  assert.ok(isValidProjectName('a'));
  assert.ok(isValidProjectName('Foo.Bar_baz-1'));
  assert.ok(!isValidProjectName('foo\n'));
  assert.ok(!isValidProjectName('-foo'));
  assert.ok(!isValidProjectName('foo-'));
  assert.ok(!isValidProjectName('föö'));
});

test('versions normalize like packaging, local segments included', () => {
  assert.equal(normalizeVersion('1.0+abc.1'), '1.0+abc.1');
  assert.equal(normalizeVersion('1.0-RC1'), '1.0rc1');
  assert.equal(normalizeVersion('1.0.post2.dev3'), '1.0.post2.dev3');
  assert.equal(normalizeVersion('not a version'), 'not a version');
  assert.equal(canonicalVersion('1.0.0'), '1');
  assert.equal(canonicalVersion('2.0.0+cu121.x'), '2+cu121.x');
  assert.equal(canonicalVersion('1.0'), canonicalVersion('1'));
});

test('version order and pre-releases', () => {
  const sorted = ['1.0', '1.0rc1', '0.9', '1.0.post1', '1.0.dev1', 'garbage'].sort(compareVersions);
  assert.deepEqual(sorted, ['garbage', '0.9', '1.0.dev1', '1.0rc1', '1.0', '1.0.post1']);
  assert.ok(isPrerelease('1.0rc1'));
  assert.ok(isPrerelease('1.0.dev1'));
  assert.ok(!isPrerelease('1.0.post1'));
});

test('plain release numbers, read without the full PEP 440 pattern, and parsed-once versions agree with pep440', () => {
  const plain = ['0', '1', '01.002', '1.0.0', '1.00', '007', '1.2.3.4.5.6', '99999999999999999999', '1.99999999999999999999999'];
  for (const version of plain) {
    const parsed = pep440.parse(version)!;
    assert.equal(normalizeVersion(version), parsed.release.join('.'), version);
    assert.ok(isValidVersion(version));
  }
  const others = ['v1.0', ' 1.0', '1.0 ', '1..0', '1.', '.1', '1.0a', '1!2.0', '1.0+local.7', '1.0.post1', '1.0.dev0', 'garbage', '', '１.０'];
  const all = [...plain, ...others];
  for (const a of all) {
    const ordered = new OrderedVersion(a);
    assert.equal(ordered.valid, isValidVersion(a), a);
    assert.equal(isValidVersion(a), pep440.valid(a) !== null, a);
    assert.equal(ordered.prerelease, isPrerelease(a), a);
    for (const b of all) assert.equal(Math.sign(ordered.compare(new OrderedVersion(b))), Math.sign(compareVersions(a, b)), `${a} vs ${b}`);
  }
});

test('distribution filenames', () => {
  assert.deepEqual(parseWheelFilename('foo_bar-1.0-1-py3-none-any.whl'), {
    kind: 'wheel',
    name: 'foo_bar',
    version: '1.0',
    build: '1',
    pythonTags: ['py3'],
    abiTags: ['none'],
    platformTags: ['any'],
  });
  assert.equal(parseWheelFilename('foo-1.0-py3-none.whl'), null);
  assert.deepEqual(parseSdistFilename('acme-internal-1.0.tar.gz'), { kind: 'sdist', name: 'acme-internal', version: '1.0', extension: '.tar.gz' });
  assert.deepEqual(parseSdistFilename('acme_internal-2.0rc1.zip'), { kind: 'sdist', name: 'acme_internal', version: '2.0rc1', extension: '.zip' });
});
