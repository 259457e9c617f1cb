/** The README's settings table, made from the schema: `npm run readme:settings` writes it, test/unit/readme.test.ts compares. */
import { CONFIG_FILE_VARIABLE } from './load.js';
import { SETTINGS } from './schema.js';

const HEADER = ['| environment variable | flag | config key | default | meaning |', '|---|---|---|---|---|'];

const code = (text: string) => `\`${text}\``;

export function settingsTable(): string[] {
  const rows = SETTINGS.map((s) => {
    const env = s.envs.map(code).join(' / ');
    const value = s.default === '' ? '(empty)' : code(String(s.default));
    return `| ${env} | ${code(s.flag)} | ${code(s.key)} | ${value} | ${s.doc} |`;
  });
  return [...HEADER, ...rows, `| ${code(CONFIG_FILE_VARIABLE.env)} | | | (none) | ${CONFIG_FILE_VARIABLE.doc} |`];
}

/** `readme` with its settings table (the lines from the table's header to the first line that is not a row) replaced. */
export function withSettingsTable(readme: string): string {
  const lines = readme.split('\n');
  const start = lines.indexOf(HEADER[0]!);
  if (start < 0) throw new Error(`the README has no settings table (a line "${HEADER[0]}")`);
  let end = start;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  return [...lines.slice(0, start), ...settingsTable(), ...lines.slice(end)].join('\n');
}
