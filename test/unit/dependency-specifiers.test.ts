/**
 * The PEP 440 specifier and PEP 508 requirement checks agree with `packaging` (26.2): every case below was
 * run through `SpecifierSet(...)` and `Requirement(...)` and is listed as packaging judged it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDependencySpecifier } from '../../src/model/dependency-specifier.js';
import { isValidSpecifierSet } from '../../src/model/specifiers.js';

const VALID_REQUIREMENTS = [
  'requests',
  'requests (>=2.0,<3.0)',
  'requests[socks] >=2.0 ; extra == "socks"',
  'foo @ https://x/y.whl',
  'foo@ file:///x',
  'foo @ https://x/y.whl ; python_version < "3.8"',
  'pytest>=7; python_version >= "3.8" and extra == \'test\'',
  'foo ==1.*',
  'foo (===abc)',
  'foo ===abc',
  'foo ~=1.0',
  'foo; os_name=="nt" or platform_machine in "x86 arm"',
  'foo==1.0+local',
  'a',
  'importlib-metadata (>=1.0) ; python_version < "3.8"',
  'typing_extensions>=4.6.0; python_version < "3.13"',
  'foo[a,b]',
  'foo[]',
  'foo [ a , b ] >= 1',
  'foo>=1,<2,',
  'foo ( >=1 )',
  'foo; (os_name == "nt" and (python_version < "3"))',
  'foo; os_name not in "a b"',
  'foo; "a" == "b"',
  "foo; os_name == 'a\\\\'",
  'foo.bar_baz-qux>=1.0.post1.dev2',
  'foo>=v1.0',
  'foo>= 1.0',
  'foo >= 1.0 , < 2',
  "foo>=1.0 ; python_version>='3'",
  'foo; python_full_version >= "3.8.1" and sys.platform == "linux"',
  'foo; dependency_groups == "x"',
  'foo; platform.python_implementation == "x"',
  'foo ;os_name=="x"',
  'foo>=1.0;os_name=="x"',
];
const INVALID_REQUIREMENTS = [
  'foo @ https://x/y.whl; python_version < "3.8"',
  'foo>=1.0"><script>',
  '-r other.txt',
  'https://x/y.whl',
  'foo ~=1',
  'foo --hash=sha256:abc',
  'foo; bogus == "x"',
  'foo>=1.0+local',
  'foo==1.0.*+local',
  'foo>=1.*',
  'foo==1.0a1.*',
  'foo bar',
  'foo;',
  'foo # comment',
  'foo[a b]',
  'foo[a,]',
  'foo>=1,,<2',
  'foo (>=1',
  'foo>=1)',
  'foo; os_name notin "a b"',
  'foo; os_name == "a\\x"',
  'foo; extra == "x" or',
  'foo-',
  '-foo',
  "foo; python_version>'3' and",
  'foo; os_name=="x" ;',
];
const VALID_SPECIFIER_SETS = [
  '>=3.8',
  '>=3.8,<4',
  '>=3.8, <4',
  '>=3.8,',
  ',',
  '>= 3.8',
  '>=3',
  '~=3.8',
  '==3.*',
  '!=3.0.*',
  '==3.8+local',
  '>=3.8.post1',
  '>=3.8.dev0',
  '>=3.8rc1',
  '>=v3.8',
  '=== foo',
  '>=1!2.0',
  '==1.0-1',
  '==1.0_post1',
  '  >=3.8  ',
  ' ',
];
const INVALID_SPECIFIER_SETS = [
  '>=3.8"><script>',
  '~=3',
  '<3.*',
  '>3.8.*',
  '>=3.8+local',
  '>=3.8 .0',
  '3.8',
  '>=3.8 || <2',
  '===foo bar',
  '>=1!',
  '>=3.8;',
  '>=3.8)',
  '>=3.8 and <4',
  '>=3.6.*',
];

describe('PEP 508 requirements as packaging parses them', () => {
  it('takes what packaging takes', () => {
    for (const text of VALID_REQUIREMENTS) assert.ok(!('error' in parseDependencySpecifier(text)), text);
  });
  it('refuses what packaging refuses', () => {
    for (const text of INVALID_REQUIREMENTS) assert.ok('error' in parseDependencySpecifier(text), text);
  });
  it('gives the name and the direct reference', () => {
    assert.deepEqual(parseDependencySpecifier('foo @ https://x/y.whl ; os_name == "nt"'), { name: 'foo', url: 'https://x/y.whl' });
    assert.deepEqual(parseDependencySpecifier('Foo.Bar[x]>=1'), { name: 'Foo.Bar', url: null });
  });
  it('stays linear on long input', () => {
    // A requirement of 200,000 characters is refused (or taken) in one pass; a backtracking parser would not finish.
    assert.ok('error' in parseDependencySpecifier(`${'a'.repeat(200_000)}-`));
    assert.ok('error' in parseDependencySpecifier(`foo; ${'os_name == "x" and '.repeat(10_000)}`));
  });
});

describe('PEP 440 specifier sets as packaging parses them', () => {
  it('takes what packaging takes', () => {
    for (const text of VALID_SPECIFIER_SETS) assert.ok(isValidSpecifierSet(text), JSON.stringify(text));
  });
  it('refuses what packaging refuses', () => {
    for (const text of INVALID_SPECIFIER_SETS) assert.ok(!isValidSpecifierSet(text), JSON.stringify(text));
  });
});
