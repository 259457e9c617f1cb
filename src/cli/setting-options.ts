/** The settings as command-line options: every command takes them (`--data DIR`, `--offline`, …). */
import { SETTINGS, type Setting } from '../config/schema.js';
import { parseBoolean } from '../config/values.js';
import type { OptionSpec, OptionSpecs } from './options.js';

/** A setting's README text as a terminal shows it: no code marks, a link as its text. */
export const plainText = (markdown: string): string => markdown.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replaceAll('`', '');

/** A setting's flag as an option; the booleans are the settings parsed as true or false. */
export function settingOption(s: Setting): OptionSpec {
  if (s.parse === parseBoolean) return { type: 'boolean', help: plainText(s.doc) };
  return { type: 'string', value: s.value ?? 'VALUE', help: plainText(s.doc) };
}

/** By option name (the flag without `--`). */
export const SETTING_OPTIONS: OptionSpecs = Object.fromEntries(SETTINGS.map((s) => [s.flag.slice(2), settingOption(s)]));
