/**
 * Every way into larder goes through the launcher (src/launch/), which runs it on a Node recent enough
 * whatever Node the machine has; the launcher itself is plain JavaScript that old Node parses.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { DEPLOYED_NODE_FLAGS } from '../helpers/child-server.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const launch = createRequire(import.meta.url);
const { LARDER_ROOT, requiredNode, satisfies } = launch('../../src/launch/required-node.cjs');
const LAUNCH_DIR = new URL('../../src/launch/', import.meta.url);

test('every package.json script that runs larder code runs it through the launcher', () => {
  const runsLarderCode = (command: string) => /\btsx\b|\.ts\b|run-sharded/.test(command);
  const scripts = Object.entries(pkg.scripts as Record<string, string>).filter(([, command]) => runsLarderCode(command));
  assert.deepEqual(scripts.map(([name]) => name).sort(), ['bench', 'bench:hostile', 'bundle', 'larder', 'readme:settings', 'start', 'test', 'test:slow']);
  for (const [name, command] of scripts) assert.match(command, /^node src\/launch\/with-node\.cjs /, `npm run ${name}`);
  assert.deepEqual(pkg.bin, { larder: 'src/launch/larder.cjs' });
});

test('npm start and the Docker image give node the same flags, and child servers in tests run with them', () => {
  assert.equal(pkg.scripts.start, `node src/launch/with-node.cjs node ${DEPLOYED_NODE_FLAGS.join(' ')} --import tsx src/main.ts serve`);
  const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
  assert.match(dockerfile, new RegExp(`^ENV NODE_OPTIONS=${DEPLOYED_NODE_FLAGS.join(' ')}$`, 'm'));
});

test('the Node needed is package.json engines.node, and versions compare by number', () => {
  const required = requiredNode(LARDER_ROOT);
  assert.equal(`>=${required.parts.join('.')}`, pkg.engines.node);
  assert.equal(required.text, '22.19');
  for (const ok of ['22.19.0', 'v22.19.0', '22.20.0', '24.0.0', '100.0.0']) assert.ok(satisfies(ok, required), ok);
  for (const old of ['20.20.2', 'v22.18.9', '22.9.0', '12.22.12', '3.100.100']) assert.ok(!satisfies(old, required), old);
});

test('the launcher uses no syntax or import old Node cannot parse (no node: prefix, no ?. or ??)', () => {
  const files = readdirSync(LAUNCH_DIR).filter((name) => name.endsWith('.cjs'));
  assert.ok(files.includes('with-node.cjs') && files.includes('larder.cjs'));
  for (const name of files) {
    const text = readFileSync(new URL(name, LAUNCH_DIR), 'utf8');
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, ''); // without comments
    assert.doesNotMatch(code, /require\('node:/, name);
    assert.doesNotMatch(code, /\?\?|\?\.(?!\d)/, name);
    assert.match(text, /^(#!.*\n)?'use strict';/, name);
  }
});
