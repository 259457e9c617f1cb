/** `npm run readme:settings`: rewrites the README's settings table from the schema. */
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from './settings-table.js';

const README = new URL('../../README.md', import.meta.url);
const before = readFileSync(README, 'utf8');
const after = withSettingsTable(before);
if (after !== before) writeFileSync(README, after);
process.stdout.write(after === before ? 'README.md: the settings table is current\n' : 'README.md: settings table rewritten\n');
