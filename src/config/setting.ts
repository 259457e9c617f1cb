/** The shape of one setting's declaration: everything about it stated once; the flag follows from its key. */
import type { Parser } from './values.js';

export interface SettingSpec<T> {
  /** Environment variable(s), first found wins. */
  env: string | readonly string[];
  parse: Parser<T>;
  /** The value before parsing, as a config file would give it; '' is the empty setting. */
  default: string | number | boolean;
  /** What stands for the value in help and messages (`--data DIR`); booleans have none. */
  value?: string;
  /** Markdown: the README's "meaning" column; `--help` shows it as plain text. */
  doc: string;
  /**
   * A setting of the upstream: each `upstreams` entry has it as a field named without `upstream`
   * (`upstreamRetries` → `retries`). `every`: the setting is every upstream's default; `own`: it belongs
   * to `LARDER_UPSTREAM` only, and a listed upstream gives its own.
   */
  perUpstream?: 'every' | 'own';
}

export const setting = <T>(spec: SettingSpec<T>): SettingSpec<T> => spec;

/** `upstreamJsonApi` → `--upstream-json-api`. */
export const flagOf = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
