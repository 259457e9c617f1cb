/** Wheel tags against targets, by packaging.tags' rules (cases from its tests/test_tags.py and the manylinux PEPs). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWheelFilename } from '../../src/model/filenames.js';
import { macPlatforms, platformCompatible, wheelCompatible } from '../../src/mirror/tags.js';
import type { Target } from '../../src/mirror/target.js';

const LINUX_311: Target = { python: '3.11', platform: 'manylinux_2_17_x86_64' };
const MUSL_312: Target = { python: '3.12', platform: 'musllinux_1_2_aarch64' };
const MAC_312: Target = { python: '3.12', platform: 'macosx_11_0_arm64' };
const MAC_X86: Target = { python: '3.10', platform: 'macosx_12_0_x86_64' };
const WIN_311: Target = { python: '3.11', platform: 'win_amd64' };

const CASES: [string, Target, boolean][] = [
  ['x-1.0-py3-none-any.whl', LINUX_311, true],
  ['x-1.0-py2.py3-none-any.whl', WIN_311, true],
  ['x-1.0-py2-none-any.whl', LINUX_311, false],
  ['x-1.0-py311-none-any.whl', LINUX_311, true],
  ['x-1.0-py312-none-any.whl', LINUX_311, false],
  ['x-1.0-py38-none-any.whl', LINUX_311, true],
  ['x-1.0-cp311-none-any.whl', LINUX_311, true],
  ['x-1.0-cp310-none-any.whl', LINUX_311, false],
  ['x-1.0-cp311-abi3-any.whl', LINUX_311, false],
  ['x-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl', LINUX_311, true],
  ['x-1.0-cp311-cp311-manylinux2014_x86_64.whl', LINUX_311, true],
  ['x-1.0-cp311-cp311-manylinux2010_x86_64.whl', LINUX_311, true],
  ['x-1.0-cp311-cp311-manylinux1_x86_64.whl', LINUX_311, true],
  ['x-1.0-cp311-cp311-manylinux_2_28_x86_64.whl', LINUX_311, false],
  ['x-1.0-cp311-cp311-manylinux_2_17_aarch64.whl', LINUX_311, false],
  ['x-1.0-cp311-cp311-musllinux_1_1_x86_64.whl', LINUX_311, false],
  ['x-1.0-cp311-cp311-linux_x86_64.whl', LINUX_311, true],
  ['x-1.0-cp312-cp312-manylinux_2_17_x86_64.whl', LINUX_311, false],
  ['x-1.0-cp310-cp310-manylinux_2_17_x86_64.whl', LINUX_311, false],
  ['x-1.0-cp38-abi3-manylinux_2_17_x86_64.whl', LINUX_311, true],
  ['x-1.0-cp312-abi3-manylinux_2_17_x86_64.whl', LINUX_311, false],
  ['x-1.0-cp311-none-manylinux_2_17_x86_64.whl', LINUX_311, true],
  ['x-1.0-py3-none-manylinux_2_17_x86_64.whl', LINUX_311, true],
  ['x-1.0-pp310-pypy310_pp73-manylinux_2_17_x86_64.whl', LINUX_311, false],
  ['x-1.0-cp312-cp312-musllinux_1_1_aarch64.whl', MUSL_312, true],
  ['x-1.0-cp312-cp312-musllinux_1_2_aarch64.whl', MUSL_312, true],
  ['x-1.0-cp312-cp312-musllinux_1_3_aarch64.whl', MUSL_312, false],
  ['x-1.0-cp312-cp312-manylinux_2_17_aarch64.whl', MUSL_312, false],
  ['x-1.0-cp312-cp312-macosx_11_0_arm64.whl', MAC_312, true],
  ['x-1.0-cp312-cp312-macosx_10_9_universal2.whl', MAC_312, true],
  ['x-1.0-cp312-cp312-macosx_10_9_x86_64.whl', MAC_312, false],
  ['x-1.0-cp312-cp312-macosx_12_0_arm64.whl', MAC_312, false],
  ['x-1.0-cp310-cp310-macosx_10_9_x86_64.whl', MAC_X86, true],
  ['x-1.0-cp310-cp310-macosx_10_9_intel.whl', MAC_X86, true],
  ['x-1.0-cp310-cp310-macosx_11_0_arm64.whl', MAC_X86, false],
  ['x-1.0-cp311-cp311-win_amd64.whl', WIN_311, true],
  ['x-1.0-cp311-cp311-win32.whl', WIN_311, false],
  ['x-1.0-cp311-cp311-win_amd64.whl', LINUX_311, false],
];

for (const [filename, target, expected] of CASES) {
  test(`${filename} on ${target.python}/${target.platform} → ${expected}`, () => {
    assert.equal(wheelCompatible(parseWheelFilename(filename)!, target), expected);
  });
}

test('mac_platforms as packaging yields them', () => {
  // packaging: list(mac_platforms((11, 0), "arm64")) starts with these and offers universal2 back to 10.4.
  const arm = macPlatforms([11, 0], 'arm64');
  assert.deepEqual(arm.slice(0, 3), ['macosx_11_0_arm64', 'macosx_11_0_universal2', 'macosx_10_16_universal2']);
  assert.ok(arm.includes('macosx_10_4_universal2') && !arm.includes('macosx_10_3_universal2'));
  const x86 = macPlatforms([10, 15], 'x86_64');
  assert.deepEqual(x86.slice(0, 6), [
    'macosx_10_15_x86_64',
    'macosx_10_15_intel',
    'macosx_10_15_fat64',
    'macosx_10_15_fat32',
    'macosx_10_15_universal2',
    'macosx_10_15_universal',
  ]);
  assert.ok(!x86.some((p) => p.startsWith('macosx_10_3_')));
});

test('manylinux aliases are the same glibc versions (PEP 600)', () => {
  assert.ok(platformCompatible('manylinux2014_x86_64', 'manylinux_2_17_x86_64'));
  assert.ok(platformCompatible('manylinux_2_17_x86_64', 'manylinux2014_x86_64'));
  assert.ok(!platformCompatible('manylinux_2_18_x86_64', 'manylinux2014_x86_64'));
  assert.ok(platformCompatible('manylinux_2_5_i686', 'manylinux1_i686'));
});
