/**
 * The repository is self-contained: no test, script, source, config or doc reads the shared notes that sit
 * beside a working copy but not beside a clone, and the captured index responses the tests read instead
 * (test/fixtures/spec/) are the bytes their README lists.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED_DIRS = ['test', 'src', 'bench', 'config', 'docs', '.ci'];
/** Build output, dependencies and run artefacts: not the repository's own text. */
const SKIPPED = new Set(['node_modules', 'dist', '.build', 'profiles', '.artifacts', '.git']);
/** A relative path climbing to `shared`, the absolute path of the shared folder, or its spec folder. */
const OUTSIDE = /(?:\.\.[\\/])+shared\b|[\\/]work[\\/]shared\b|\bshared[\\/]spec\b/;

function* textFiles(dir: string, recurse: boolean): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && recurse && !SKIPPED.has(entry.name)) yield* textFiles(path, true);
    if (entry.isFile()) yield path;
  }
}

/** `file:line: text` for every line of the repository's text files that names a path outside it. */
function outsideReferences(root: string): string[] {
  const files = [
    ...textFiles(root, false),
    ...SCANNED_DIRS.flatMap((d) => (statSync(join(root, d), { throwIfNoEntry: false })?.isDirectory() ? [...textFiles(join(root, d), true)] : [])),
  ];
  const found: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    if (bytes.includes(0)) continue;
    bytes
      .toString('utf8')
      .split('\n')
      .forEach((line, i) => {
        if (OUTSIDE.test(line)) found.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe('the repository is self-contained', () => {
  test('no file under test/, src/, bench/, config/, docs/, .ci/ or at the top names a path to the shared folder', () => {
    assert.deepEqual(outsideReferences(REPO), []);
  });

  test('the check finds such a path (a fixture URL climbing out of the repository)', () => {
    const root = mkdtempSync(join(tmpdir(), 'larder-self-contained-'));
    try {
      mkdirSync(join(root, 'test', 'unit'), { recursive: true });
      const climbing = `const FIXTURES = new URL('${'../'.repeat(3)}${'shared'}/spec/fixtures/', import.meta.url);\n`;
      writeFileSync(join(root, 'test', 'unit', 'parse.test.ts'), `// fine\n${climbing}`);
      writeFileSync(join(root, 'README.md'), 'nothing outside\n');
      assert.deepEqual(outsideReferences(root), [`test/unit/parse.test.ts:2: ${climbing.trim()}`]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('test/fixtures/spec/ holds exactly the files its README lists, byte for byte', () => {
    const dir = join(REPO, 'test', 'fixtures', 'spec');
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const listed = new Map([...readme.matchAll(/^([0-9a-f]{64}) {2}(\S+)$/gm)].map((m) => [m[2]!, m[1]!]));
    const present = readdirSync(dir).filter((name) => name !== 'README.md');
    assert.deepEqual(present.sort(), [...listed.keys()].sort());
    for (const name of present) {
      const sha = createHash('sha256')
        .update(readFileSync(join(dir, name)))
        .digest('hex');
      assert.equal(sha, listed.get(name), `${name} differs from the capture its README lists`);
    }
  });
});
