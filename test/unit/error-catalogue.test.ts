/**
 * The error catalogue, the throw sites and docs/errors.md agree: every catalogued code is used somewhere
 * in src/, every code a throw site names is catalogued, every Error subclass is a LarderError or listed
 * as internal, and the people's table has each code with its status.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ERROR_CATALOGUE, INTERNAL_ERRORS } from '../../src/base/error-catalogue.js';
import { LarderError } from '../../src/base/errors.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CATALOGUE_FILE = join('src', 'base', 'error-catalogue.ts');

async function sources(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(join(REPO, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('.ts') && path !== CATALOGUE_FILE) found.set(path, await readFile(join(REPO, path), 'utf8'));
    }
  };
  await walk('src');
  return found;
}

/** Codes named at throw sites: the first string argument of LarderError and of the helpers that wrap it. */
const THROW_SITE = /\b(?:new LarderError|badRequest|notFound|conflict|forbidden|bad|invalid|refuse)\(\s*'([a-z0-9_]+)'/g;

describe('error catalogue', () => {
  it('every catalogued code is used in src/', async () => {
    const all = [...(await sources()).values()].join('\n');
    const unused = Object.keys(ERROR_CATALOGUE).filter((code) => !all.includes(`'${code}'`));
    assert.deepEqual(unused, [], 'catalogued codes nobody throws: remove them');
  });

  it('every code named at a throw site is catalogued', async () => {
    const uncatalogued: string[] = [];
    for (const [path, text] of await sources()) {
      for (const m of text.matchAll(THROW_SITE)) {
        if (!Object.hasOwn(ERROR_CATALOGUE, m[1]!)) uncatalogued.push(`${path}: ${m[1]}`);
      }
    }
    assert.deepEqual(uncatalogued, []);
  });

  it('every Error subclass outside errors.ts is listed as internal', async () => {
    const subclasses: string[] = [];
    for (const [path, text] of await sources()) {
      if (path === join('src', 'base', 'errors.ts')) continue;
      for (const m of text.matchAll(/class (\w+) extends Error\b/g)) subclasses.push(m[1]!);
    }
    assert.deepEqual(subclasses.sort(), Object.keys(INTERNAL_ERRORS).sort());
  });

  it('a LarderError takes its status from the catalogue', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      assert.equal(new LarderError(code as keyof typeof ERROR_CATALOGUE, 'x').status, entry.status, code);
      assert.ok(entry.meaning.length > 10, `${code} needs a meaning`);
    }
  });

  it('docs/errors.md lists every code with its status, and no other', async () => {
    const doc = await readFile(join(REPO, 'docs', 'errors.md'), 'utf8');
    const rows = new Map([...doc.matchAll(/^\| `([a-z0-9_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
    const expected = new Map(Object.entries(ERROR_CATALOGUE).map(([code, entry]) => [code, entry.status as number]));
    assert.deepEqual(rows, expected);
    for (const name of Object.keys(INTERNAL_ERRORS)) assert.ok(doc.includes(`\`${name}\``), `docs/errors.md should explain ${name}`);
  });
});
