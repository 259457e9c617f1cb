/**
 * Command-line options: what a command declares (type, help, default) and how an argument list is read
 * against it. node:util parseArgs splits the words; this module judges them, so that a mistyped option
 * gets "did you mean", a string option without a value says so, and every boolean takes `--flag`,
 * `--flag=false`, `--flag false` and `--no-flag`.
 */
import { parseArgs } from 'node:util';
import { closest } from './suggest.js';

export class UsageError extends Error {}

export interface OptionSpec {
  type: 'boolean' | 'string';
  short?: string;
  multiple?: boolean;
  /** The value's placeholder in help (`FILE`, `N`); string options only. */
  value?: string;
  /** One line for help. */
  help: string;
  /** Shown in help as "(default …)". */
  default?: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0']);

function booleanValue(flag: string, word: string): boolean {
  const lower = word.toLowerCase();
  if (TRUE_WORDS.has(lower)) return true;
  if (FALSE_WORDS.has(lower)) return false;
  throw new UsageError(`option '${flag}' is true or false, not '${word}'`);
}

export function unknownOption(flag: string, specs: OptionSpecs, helpHint: string): UsageError {
  const near = flag.startsWith('--') ? closest(flag.slice(2), Object.keys(specs)) : null;
  return new UsageError(`unknown option '${flag}'; ${near ? `did you mean '--${near}'?` : `${helpHint} lists the options`}`);
}

/** Reads `argv` against `specs`; `helpHint` (e.g. `larder user list --help`) ends the message about an unknown option. */
export function parseOptions(argv: string[], specs: OptionSpecs, helpHint: string): { values: OptionValues; positionals: string[] } {
  const declared = Object.fromEntries(Object.entries(specs).map(([name, s]) => [name, { type: s.type, ...(s.short ? { short: s.short } : {}) }]));
  const { tokens } = parseArgs({ args: argv, options: declared, strict: false, allowPositionals: true, tokens: true });
  const values: OptionValues = {};
  const positionals: string[] = [];
  const set = (name: string, value: string | boolean) => {
    if (specs[name]!.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), String(value)];
    else values[name] = value;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const { rawName } = token;
    let name = token.name;
    let negated = false;
    if (!specs[name] && name.startsWith('no-') && specs[name.slice(3)]?.type === 'boolean') {
      name = name.slice(3);
      negated = true;
    }
    const spec = specs[name];
    if (!spec) throw unknownOption(rawName, specs, helpHint);
    if (spec.type === 'boolean') {
      if (negated) {
        if (token.value !== undefined) throw new UsageError(`option '${rawName}' takes no value`);
        set(name, false);
        continue;
      }
      const next = tokens[i + 1];
      if (token.value !== undefined) set(name, booleanValue(rawName, token.value));
      else if (next?.kind === 'positional' && (next.value === 'true' || next.value === 'false')) {
        set(name, next.value === 'true');
        i++;
      } else set(name, true);
      continue;
    }
    const flag = rawName.startsWith('--') ? rawName : `${rawName} (--${name})`;
    const placeholder = spec.value ?? 'VALUE';
    if (token.value === undefined) throw new UsageError(`option ${flag} needs a value: ${rawName} ${placeholder}`);
    if (!token.inlineValue && token.value.startsWith('-') && token.value.length > 1) {
      throw new UsageError(`option ${flag} needs a value, not the option '${token.value}'; a value starting with '-' is written ${rawName}=${token.value}`);
    }
    set(name, token.value);
  }
  return { values, positionals };
}
