/** The README documents every setting and every command the code has. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { COMMANDS } from '../../src/cli/commands.js';
import { SETTINGS } from '../../src/config/schema.js';
import { settingsTable, withSettingsTable } from '../../src/config/settings-table.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README settings table is the one the schema makes (npm run readme:settings writes it)', () => {
  const table = settingsTable();
  const start = readme.split('\n').indexOf(table[0]!);
  assert.ok(start >= 0, 'README has the settings table');
  const actual = readme.split('\n').slice(start, start + table.length + 1);
  assert.deepEqual(actual.slice(0, table.length), table, 'run npm run readme:settings');
  assert.ok(!actual[table.length]?.startsWith('|'), 'no row beyond the settings: run npm run readme:settings');
  assert.equal(withSettingsTable(readme), readme);
});

test('each setting has its README row: its variables, flag, key and default', () => {
  const rows = readme.split('\n').map((line) => line.split(' | '));
  for (const s of SETTINGS) {
    const cells = rows.find((row) => row[2] === `\`${s.key}\``);
    assert.ok(cells, `README has no row for ${s.key}`);
    for (const env of s.envs) assert.ok(cells[0]!.includes(`\`${env}\``), `${s.key}: ${env}`);
    assert.equal(cells[1], `\`${s.flag}\``, s.key);
    assert.equal(cells[3], s.default === '' ? '(empty)' : `\`${String(s.default)}\``, s.key);
  }
});

test('a changed setting makes the README differ', () => {
  const changed = readme.replace('| `LARDER_PORT` | `--port` | `port` | `3142` |', '| `LARDER_PORT` | `--port` | `port` | `8080` |');
  assert.notEqual(changed, readme, 'the port row is in the README');
  assert.equal(withSettingsTable(changed), readme, 'regenerating restores the row');
});

test('every CLI command appears in the README', () => {
  for (const name of Object.keys(COMMANDS)) assert.ok(readme.includes(`larder ${name}`), `README does not mention larder ${name}`);
});
