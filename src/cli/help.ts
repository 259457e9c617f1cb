/**
 * What `--help` prints: the main help, `serve --help` with every setting, and a subcommand's help with its
 * own options and the few settings it is about (the data directory and the shared backends).
 */
import { SETTINGS, type SettingKey } from '../config/schema.js';
import { HELP_OPTION } from './args.js';
import { settingOption } from './setting-options.js';
import type { Command } from './command.js';
import type { OptionSpec, OptionSpecs } from './options.js';

/** The settings a command's help shows unless it names others: where its data lives. */
const STORE_SETTINGS: readonly SettingKey[] = ['data', 'databaseUrl', 'blobStore'];

type Row = [left: string, right: string];

function optionRow(name: string, spec: OptionSpec): Row {
  const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`;
  return [flag, `${spec.help}${spec.default !== undefined ? ` (default ${spec.default})` : ''}`];
}

function settingRows(keys: readonly SettingKey[] | null): Row[] {
  return SETTINGS.filter((s) => keys === null || keys.includes(s.key)).map((s) => {
    const option = settingOption(s);
    const shown = s.default === '' || s.default === false ? '' : `default ${String(s.default)}; `;
    const env = s.envs.join(', ');
    const [flag, help] = optionRow(s.flag.slice(2), option);
    return [flag, `${help} (${shown}env ${env})`];
  });
}

/** The width of the left column of `rows` (at most 30; a longer flag gets a line of its own). */
const widthOf = (rows: Row[]) => Math.min(30, Math.max(...rows.map(([left]) => left.length)));

function table(rows: Row[], width = widthOf(rows)): string[] {
  return rows.map(([left, right]) => (left.length > width ? `  ${left}\n  ${' '.repeat(width)}  ${right}` : `  ${left.padEnd(width)}  ${right}`));
}

const optionRows = (options: OptionSpecs): Row[] => Object.entries(options).map(([name, spec]) => optionRow(name, spec));

export function serveHelp(): string {
  return [
    'usage: larder serve [settings]',
    '',
    'Run the index server. Flags override environment variables, which override the file LARDER_CONFIG',
    '(TOML when its name ends in .toml, JSON otherwise), which overrides the defaults shown here.',
    'A boolean setting takes --offline, --offline=false or --no-offline.',
    '',
    'Settings:',
    ...table([...settingRows(null), ...optionRows(HELP_OPTION)]),
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const own = optionRows({ ...command.options, ...HELP_OPTION });
  const settings = settingRows(command.settings ?? STORE_SETTINGS);
  const width = widthOf([...own, ...settings]);
  return [
    `usage: ${command.usage}`,
    '',
    command.summary,
    ...(command.description ? ['', command.description] : []),
    '',
    'Options:',
    ...table(own, width),
    '',
    'Settings (every setting of larder serve --help is taken here too):',
    ...table(settings, width),
  ].join('\n');
}

export function mainHelp(commands: Record<string, Command>): string {
  const rows: Row[] = [['serve', 'run the index server'], ...Object.entries(commands).map(([name, c]): Row => [name, c.summary])];
  return [
    'usage: larder COMMAND [ARGS] [--help]',
    '       larder --version',
    '',
    'Commands:',
    ...table(rows),
    '',
    'larder COMMAND --help shows the options of a command; larder serve --help shows every setting.',
  ].join('\n');
}
