/** Argument parsing shared by the commands: node:util parseArgs plus the config flags every command takes. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig } from '../config/load.js';
import { SETTINGS, type Config, type ConfigKey } from '../config/schema.js';

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

const CONFIG_OPTIONS: Options = Object.fromEntries(
  SETTINGS.map((s) => [s.flag.slice(2), { type: s.key === 'offline' || s.key === 'readAuth' ? ('boolean' as const) : ('string' as const) }]),
);

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  config: () => Config;
}

export function parseCommand(argv: string[], options: Options, env: NodeJS.ProcessEnv): Parsed {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: { ...CONFIG_OPTIONS, ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values = parsed.values as Parsed['values'];
  const { positionals } = parsed;
  const flags: Partial<Record<ConfigKey, unknown>> = {};
  for (const s of SETTINGS) {
    const v = values[s.flag.slice(2)];
    if (v !== undefined) flags[s.key] = v;
  }
  return { values, positionals, config: () => loadConfig({ env, flags }) };
}

export const CONFIG_FLAGS_HELP = SETTINGS.map((s) => `  ${s.flag.padEnd(20)} ${s.help} (env ${s.env})`).join('\n');
