/** What a `larder` subcommand is: its usage and help, its arguments, and what it runs against a data directory. */
import type { Config, SettingKey } from '../config/schema.js';
import type { Storage } from '../store/storage.js';
import type { OptionSpecs } from './options.js';

export interface Io {
  out: (line: string) => void;
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
}

export type Handler = (argv: string[], io: Io) => Promise<void>;

export interface Command {
  usage: string;
  summary: string;
  /** More help, shown by `--help` after the summary. */
  description?: string;
  options?: OptionSpecs;
  /** The settings its help lists (default: the data directory and the shared backends); all are taken. */
  settings?: readonly SettingKey[];
  minArgs: number;
  maxArgs: number;
  /** Opens the data directory alone, even when shared backends are configured (`migrate` moves it into them). */
  localStorage?: boolean;
  run: (args: string[], values: Record<string, unknown>, storage: Storage, io: Io, config: Config) => Promise<void>;
}
