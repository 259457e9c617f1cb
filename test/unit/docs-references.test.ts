/**
 * The docs name only files and code that exist: every backticked repository path in README.md,
 * bench/README.md and docs/*.md is a file or folder of the repository, and every backticked code symbol
 * (a camelCase or PascalCase identifier) occurs in src/, test/ or bench/.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CODE_DIRS = ['src', 'test', 'bench'];
/** Build output, dependencies and run artefacts: not the repository's own code. */
const SKIPPED = new Set(['node_modules', 'dist', '.build', 'profiles', '.artifacts', '.git']);
const FILE_EXTENSIONS = /\.(?:ts|js|mjs|cjs|md|json|sh|toml|ya?ml|png|txt)$/;
const CODE_EXTENSIONS = /^[\w.-]+\.(?:ts|mjs|cjs)$/;
/** This file names missing symbols on purpose, as examples. */
const THIS_FILE = fileURLToPath(import.meta.url);
/** An identifier with a hump: camelCase (`diskFileAnswer`) or PascalCase with two words (`RenderedCache`). */
const HUMPED = /^(?:[a-z][a-z0-9]*[A-Z]|[A-Z][a-z0-9]+[A-Z])[A-Za-z0-9]*$/;
/** `name`, `Type.member`, each optionally called: `catchUp()`, `DownloadLocks.tryLock(key)`. */
const SYMBOL_SPAN = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\([\w, ]*\))?$/;

/** Humped spans that are not our code, each with the reason it is named. */
const NOT_CODE = new Map([
  ['KiB', 'a unit'],
  ['MiB', 'a unit'],
  ['GiB', 'a unit'],
  ['HttpOnly', 'a cookie attribute'],
  ['VmRSS', 'a field of /proc/<pid>/status'],
  ['VmHWM', 'a field of /proc/<pid>/status'],
  ['CommonMark', 'the Markdown standard'],
  ['GetObject', 'an S3 API operation'],
  ['PutObject', 'an S3 API operation'],
  ['CopyObject', 'an S3 API operation'],
  ['HeadObject', 'an S3 API operation'],
  ['ListObjectsV2', 'an S3 API operation'],
  ['DeleteObject', 'an S3 API operation'],
]);
/** Repository paths that only exist after a run, each with the reason. */
const RUN_ARTEFACTS = new Map([
  ['test/.artifacts/', 'written by failing browser tests'],
  ['bench/profiles/', 'written by a profiled benchmark run'],
  ['dist/src/', 'written by npm run build'],
]);

function docFiles(): string[] {
  const docs = readdirSync(join(REPO, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', 'bench/README.md', ...docs.map((name) => `docs/${name}`)];
}

function* codeFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || join(dir, entry.name) === THIS_FILE) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* codeFiles(path);
    else if (entry.isFile() && !entry.name.endsWith('.md')) yield path;
  }
}

/** Every identifier-like word, and every file name, of the code folders. */
function codeVocabulary(): { words: Set<string>; fileNames: Set<string> } {
  const words = new Set<string>();
  const fileNames = new Set<string>();
  for (const dir of CODE_DIRS) {
    for (const file of codeFiles(join(REPO, dir))) {
      fileNames.add(basename(file));
      const bytes = readFileSync(file);
      if (bytes.includes(0)) continue;
      for (const [word] of bytes.toString('utf8').matchAll(/[A-Za-z_$][\w$]*/g)) words.add(word);
    }
  }
  return { words, fileNames };
}

interface Span {
  where: string;
  text: string;
}

/** The inline code spans of a Markdown file, outside fenced blocks, with `doc:line`. */
function spans(doc: string): Span[] {
  const found: Span[] = [];
  let fenced = false;
  readFileSync(join(REPO, doc), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (/^\s*(?:```|~~~)/.test(line)) fenced = !fenced;
      else if (!fenced) for (const match of line.matchAll(/`([^`]+)`/g)) found.push({ where: `${doc}:${index + 1}`, text: match[1]! });
    });
  return found;
}

/**
 * A span read as a repository path: no spaces, URL, glob, placeholder or home/absolute/dot-relative form,
 * at least one `/` and a known file extension, or at least two segments and a trailing `/` (a folder).
 * Single-segment folders (`lmdb/`, `tmp/`) are left alone: they are as often data-directory folders.
 */
function repositoryPath(text: string): string | undefined {
  if (/[\s*<>…:@~=?#{}]/.test(text) || /^[./]/.test(text) || !text.includes('/')) return undefined;
  if (FILE_EXTENSIONS.test(text)) return text;
  if (text.endsWith('/') && text.slice(0, -1).includes('/')) return text;
  return undefined;
}

/** Every file and folder of the code folders, relative to the repository, folders ending in `/`. */
function repositoryEntries(): string[] {
  const entries: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      entries.push(relative(REPO, path) + (entry.isDirectory() ? '/' : ''));
      if (entry.isDirectory()) walk(path);
    }
  };
  for (const dir of CODE_DIRS) walk(join(REPO, dir));
  return entries;
}

/**
 * A path exists from the repository root, or as the tail of a path under src/, test/ or bench/: docs
 * write `upload/dist-metadata.ts`, `lmdb/lmdb-index-store.ts` or `sections/web.ts` inside a section
 * that has already said which folder it is in.
 */
function pathExists(path: string, entries: string[]): boolean {
  return existsSync(join(REPO, path)) || entries.some((entry) => entry.endsWith(`/${path}`));
}

test('every repository path a doc names exists', () => {
  const entries = repositoryEntries();
  const missing: string[] = [];
  let checked = 0;
  for (const doc of docFiles()) {
    for (const { where, text } of spans(doc)) {
      const path = repositoryPath(text);
      if (path === undefined || RUN_ARTEFACTS.has(path)) continue;
      checked++;
      if (!pathExists(path, entries)) missing.push(`${where}: ${path}`);
    }
  }
  assert.ok(checked > 50, `only ${checked} paths recognised: the heuristic has stopped matching`);
  assert.deepEqual(missing, [], `docs name paths that do not exist:\n${missing.join('\n')}`);
});

test('every code symbol or source file name a doc names occurs in src/, test/ or bench/', () => {
  const { words, fileNames } = codeVocabulary();
  const missing: string[] = [];
  let checked = 0;
  for (const doc of docFiles()) {
    for (const { where, text } of spans(doc)) {
      if (CODE_EXTENSIONS.test(text)) {
        checked++;
        if (!fileNames.has(text)) missing.push(`${where}: file ${text}`);
        continue;
      }
      if (!SYMBOL_SPAN.test(text)) continue;
      const names = text
        .replace(/\(.*\)$/, '')
        .split('.')
        .filter((name) => HUMPED.test(name) && !NOT_CODE.has(name));
      for (const name of names) {
        checked++;
        if (!words.has(name)) missing.push(`${where}: ${name}`);
      }
    }
  }
  assert.ok(checked > 50, `only ${checked} symbols recognised: the heuristic has stopped matching`);
  assert.deepEqual(missing, [], `docs name code that does not exist:\n${missing.join('\n')}`);
});

test('the recognisers read paths and symbols the way the docs write them', () => {
  assert.equal(repositoryPath('src/upload/'), 'src/upload/');
  assert.equal(repositoryPath('upload/dist-metadata.ts'), 'upload/dist-metadata.ts');
  for (const notPath of ['/simple/', 'https://pypi.org/simple/', 'test/helpers/hostile-*.ts', '<data>/blobs/x.json', 'lmdb/', 'text/html', './data']) {
    assert.equal(repositoryPath(notPath), undefined, notPath);
  }
  for (const symbol of ['diskFileAnswer', 'RenderedCache', 'projectPageAnswer()', 'IndexStore.catchUp()']) assert.match(symbol, SYMBOL_SPAN);
  for (const name of ['diskFileAnswer', 'RenderedCache', 'catchUp']) assert.match(name, HUMPED);
  for (const notSymbol of ['LARDER_DATA', 'larder_http_requests_total', 'wheel', 'Koa', '--public-url']) assert.doesNotMatch(notSymbol, HUMPED);
});
