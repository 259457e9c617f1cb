/**
 * The README's client snippets and the end-to-end test that runs them name the same blocks, so that no
 * snippet goes untested and no test reads a block that is gone (the e2e test itself skips without clients).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const e2e = readFileSync(new URL('../e2e/readme-snippets.test.ts', import.meta.url), 'utf8');

test('every README snippet marker is followed by a fenced block and is run by test/e2e/readme-snippets.test.ts', () => {
  const markers = [...readme.matchAll(/<!-- snippet: ([a-z0-9.-]+) -->\n(.*)/g)];
  assert.ok(markers.length >= 10, `only ${markers.length} snippet markers`);
  for (const [, name, next] of markers) assert.match(next!, /^```[a-z]*$/, `snippet ${name} is not followed by a fenced block`);
  const inReadme = markers.map((m) => m[1]!).sort();
  assert.equal(new Set(inReadme).size, inReadme.length, 'snippet names are unique');
  const used = [...new Set([...e2e.matchAll(/readmeSnippet\('([a-z0-9.-]+)'\)/g)].map((m) => m[1]!))].sort();
  assert.deepEqual(used, inReadme);
});
