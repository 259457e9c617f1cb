/** PEP 508 markers against target environments: cases from PEP 508 and packaging's tests/test_markers.py. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markerHolds } from '../../src/mirror/markers.js';
import { parseMarker } from '../../src/mirror/requirement.js';
import { markerEnvironment } from '../../src/mirror/target.js';

const linux311 = markerEnvironment({ python: '3.11', platform: 'manylinux_2_17_x86_64' });
const win312 = markerEnvironment({ python: '3.12', platform: 'win_amd64' });
const mac39 = markerEnvironment({ python: '3.9.7', platform: 'macosx_11_0_arm64' });

const CASES: [string, Record<string, string>, boolean, string[]?][] = [
  ['python_version >= "3.8"', linux311, true],
  ['python_version < "3.8"', linux311, false],
  ['python_version > "3.11"', linux311, false],
  ['"3.8" <= python_version', linux311, true],
  ['python_version == "3.11.*"', linux311, true],
  ['python_version ~= "3.10"', linux311, true],
  ['python_full_version >= "3.9.7"', mac39, true],
  ['python_full_version > "3.9.7"', mac39, false],
  ['python_full_version == "3.12.0"', win312, true],
  ['sys_platform == "win32"', win312, true],
  ['sys_platform == "win32"', linux311, false],
  ['sys_platform != "win32" and platform_machine == "x86_64"', linux311, true],
  ['platform_system == "Darwin" and platform_machine == "arm64"', mac39, true],
  ['os_name == "nt"', win312, true],
  ['os_name == "posix"', mac39, true],
  ['platform_machine in "x86_64 aarch64"', linux311, true],
  ['platform_machine not in "x86_64 aarch64"', linux311, false],
  ['"linux" in sys_platform', linux311, true],
  ['implementation_name == "cpython"', linux311, true],
  ['platform_python_implementation != "PyPy"', linux311, true],
  ['(python_version < "3.9" or sys_platform == "win32") and os_name == "nt"', win312, true],
  ['python_version < "3.9" or sys_platform == "win32" and os_name == "posix"', win312, false],
  ['extra == "socks"', linux311, false],
  ['extra == "socks"', linux311, true, ['socks']],
  ['extra == "Socks_Proxy"', linux311, true, ['socks-proxy']],
  ['extra == "test" and python_version >= "3.8"', linux311, true, ['docs', 'test']],
  ['platform_release == ""', linux311, true],
];

for (const [marker, env, expected, extras] of CASES) {
  test(`marker ${marker}${extras ? ` with extras ${extras}` : ''} → ${expected}`, () => {
    assert.equal(markerHolds(parseMarker(marker, 'test'), env, extras ?? []), expected);
  });
}

test('a version operator between non-versions is an error, as in packaging', () => {
  assert.throws(() => markerHolds(parseMarker('sys_platform >= "linux"', 'test'), linux311), /cannot compare/);
});

test('the environment of each platform family', () => {
  assert.deepEqual(
    [linux311.sys_platform, linux311.platform_system, linux311.os_name, linux311.platform_machine, linux311.python_full_version],
    ['linux', 'Linux', 'posix', 'x86_64', '3.11.0'],
  );
  assert.deepEqual([win312.sys_platform, win312.platform_system, win312.platform_machine], ['win32', 'Windows', 'AMD64']);
  assert.equal(markerEnvironment({ python: '3.12', platform: 'musllinux_1_2_aarch64' }).platform_machine, 'aarch64');
  assert.throws(() => markerEnvironment({ python: '3.12', platform: 'amiga_68k' }), /not a wheel platform tag/);
});
