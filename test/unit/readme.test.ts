/** The README documents every setting and every command the code has. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { COMMANDS } from '../../src/cli/commands.js';
import { readDefaults } from '../../src/config/load.js';
import { SETTINGS } from '../../src/config/schema.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('every setting appears in the README configuration table with its default', () => {
  const defaults = readDefaults();
  for (const s of SETTINGS) {
    const envs = typeof s.env === 'string' ? [s.env] : s.env;
    const row = readme.split('\n').find((line) => line.startsWith('|') && line.includes(`\`${s.flag}\``) && line.includes(`\`${s.key}\``));
    assert.ok(row, `README has no row for ${s.key}`);
    for (const env of envs) assert.ok(row.includes(`\`${env}\``), `${s.key}: ${env} missing`);
    const value = defaults[s.key];
    if (value === '' || value === undefined) assert.match(row, /\(empty\)/, `${s.key}: default should read (empty)`);
    else assert.ok(row.includes(`\`${String(value)}\``), `${s.key}: default ${String(value)} missing from: ${row}`);
  }
});

test('every CLI command appears in the README', () => {
  for (const name of Object.keys(COMMANDS)) assert.ok(readme.includes(`larder ${name}`), `README does not mention larder ${name}`);
});
