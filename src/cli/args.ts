/** Argument parsing shared by the commands: a command's own options plus the settings flags every command takes. */
import { loadConfig } from '../config/load.js';
import { SETTINGS, type Config, type SettingKey } from '../config/schema.js';
import { parseOptions, UsageError, type OptionSpecs, type OptionValues } from './options.js';
import { SETTING_OPTIONS } from './setting-options.js';

export { UsageError };

export const HELP_OPTION: OptionSpecs = { help: { type: 'boolean', short: 'h', help: 'show this help' } };

export interface Parsed {
  values: OptionValues;
  positionals: string[];
  config: () => Config;
}

/** `name` is the command as typed after `larder` (e.g. `user list`), for the hint after an unknown option. */
export function parseCommand(name: string, argv: string[], options: OptionSpecs, env: NodeJS.ProcessEnv): Parsed {
  const { values, positionals } = parseOptions(argv, { ...SETTING_OPTIONS, ...options, ...HELP_OPTION }, `larder ${name} --help`);
  const flags: Partial<Record<SettingKey, unknown>> = {};
  for (const s of SETTINGS) {
    const v = values[s.flag.slice(2)];
    if (v !== undefined) flags[s.key] = v;
  }
  return { values, positionals, config: () => loadConfig({ env, flags }) };
}
