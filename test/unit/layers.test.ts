/**
 * The layer order written in docs/architecture.md ("Layers") holds in src/: a file imports only files of its own
 * layer or of layers listed before it, and no files import each other in a loop.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const src = join(root, 'src');

/** The numbered list of the "## Layers" section, bottom first: `src/base/` → base, `src/app.ts` → app.ts. */
function documentedLayers(): string[] {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith('Layers'));
  assert.ok(section, 'docs/architecture.md has no "## Layers" section');
  return [...section.matchAll(/^\d+\. `src\/([^`]+?)\/?`/gm)].map((m) => m[1] as string);
}

/** Every TypeScript file under src/ (the launcher is CommonJS and imports nothing of larder's). */
function sourceFiles(): string[] {
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))
    .map((path) => join(src, path));
}

/** The src/ files a file imports, re-exports or loads with import(), found by their relative specifiers. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g);
  return [...specifiers].map((m) => resolve(dirname(file), m[1] as string).replace(/\.js$/, '.ts'));
}

/** A file's layer: its top folder under src/, or its own name for a file directly in src/. */
function layerOf(file: string): string {
  return relative(src, file).split('/')[0] as string;
}

function upwardImports(layers: readonly string[], graph: Map<string, string[]>): string[] {
  const rank = new Map(layers.map((name, i) => [name, i]));
  const found: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    for (const target of targets) {
      const to = layerOf(target);
      if (from === to) continue;
      const a = rank.get(from);
      const b = rank.get(to);
      if (a === undefined || b === undefined)
        found.push(`${relative(root, file)} -> ${relative(root, target)}: ${a === undefined ? from : to} is not in the Layers list`);
      else if (b > a) found.push(`${relative(root, file)} -> ${relative(root, target)}: ${from} imports ${to}, which stands above it`);
    }
  }
  return found;
}

/** One loop of files that import each other, or null. */
function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): string[] | null => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const loop = visit(next);
        if (loop) return loop;
      }
    }
    path.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of graph.keys()) {
    if (state.get(file) !== undefined) continue;
    const loop = visit(file);
    if (loop) return loop;
  }
  return null;
}

const graph = new Map(sourceFiles().map((file) => [file, importsOf(file)]));

test('the Layers section of docs/architecture.md names every layer of src/', () => {
  const layers = documentedLayers();
  assert.ok(layers.length >= 10, `too few layers read: ${layers.join(', ')}`);
  const present = new Set([...graph.keys()].map(layerOf));
  for (const name of present) assert.ok(layers.includes(name), `${name} is missing from the Layers list`);
});

test('no file imports a layer listed above its own', () => {
  assert.deepEqual(upwardImports(documentedLayers(), graph), []);
});

test('no files of src/ import each other in a loop', () => {
  const loop = findCycle(graph);
  assert.equal(loop, null, `import cycle: ${(loop ?? []).map((f) => relative(root, f)).join(' -> ')}`);
});

test('the checks catch an upward import and a loop', () => {
  const lower = join(src, 'base/a.ts');
  const upper = join(src, 'model/b.ts');
  const upwards = new Map([
    [lower, [upper]],
    [upper, [lower]],
  ]);
  assert.equal(upwardImports(['base', 'model'], upwards).length, 1);
  assert.deepEqual(findCycle(upwards), [lower, upper, lower]);
});
