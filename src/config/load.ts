/** Loads the configuration: the schema's defaults, then an optional JSON or TOML file, then the environment, then flags. */
import { readFileSync } from 'node:fs';
import { lazyRequire } from '../base/lazy-require.js';
import { ConfigError, SETTINGS, type Config, type SettingKey, type Settings } from './schema.js';
import { UPSTREAM_SETTINGS, upstreamsOf } from './upstream-settings.js';

/** The variable naming a settings file; the README's settings table ends with it. */
export const CONFIG_FILE_VARIABLE = {
  env: 'LARDER_CONFIG',
  doc: 'a file of settings (config keys as above): TOML when its name ends in `.toml`, JSON otherwise',
};

/** A settings file that is missing, unreadable or not in its format: one line naming the file and the format. */
class ConfigFileError extends ConfigError {
  constructor(message: string) {
    super('', '', '');
    this.message = message;
  }
}

/** `what` names where the path came from (`LARDER_CONFIG`). TOML when the name ends in `.toml`, JSON otherwise. */
function readSettingsFile(path: string, what: string): Record<string, unknown> {
  const toml = path.toLowerCase().endsWith('.toml');
  const format = toml ? 'TOML' : path.toLowerCase().endsWith('.json') ? 'JSON' : 'JSON (a name not ending in .toml is read as JSON)';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ConfigFileError(`config file ${path} not found (${what})`);
    throw new ConfigFileError(`config file ${path} (${what}) cannot be read: ${code ?? (err as Error).message}`);
  }
  let value: unknown;
  try {
    value = toml ? (lazyRequire('smol-toml') as typeof import('smol-toml')).parse(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigFileError(`config file ${path} (${what}) is not valid ${format}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new ConfigFileError(`config file ${path} (${what}) must hold ${toml ? 'settings as TOML keys' : 'one JSON object of settings'}`);
}

export interface ConfigSources {
  env?: NodeJS.ProcessEnv;
  /** Raw flag values by config key, already split from argv. */
  flags?: Partial<Record<SettingKey, unknown>>;
  /** Parsed settings used by tests and embedders (after flags). */
  overrides?: Partial<Settings>;
}

export function loadConfig({ env = {}, flags = {}, overrides = {} }: ConfigSources = {}): Config {
  const file = env[CONFIG_FILE_VARIABLE.env];
  const raw = file ? readSettingsFile(file, CONFIG_FILE_VARIABLE.env) : {};
  const known = new Set<string>(SETTINGS.map((s) => s.key));
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) throw new ConfigError(key, raw[key], `one of the known keys (${[...known].join(', ')})`);
  }
  const parsed: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    let value = s.key in raw ? raw[s.key] : s.default;
    let name: string = s.key;
    const envName = s.envs.find((n) => env[n] !== undefined);
    if (envName) {
      value = env[envName];
      name = envName;
    }
    if (flags[s.key] !== undefined) {
      value = flags[s.key];
      name = s.flag;
    }
    parsed[s.key] = s.parse(value, name);
  }
  return toConfig({ ...(parsed as Settings), ...overrides });
}

/** The settings as the code reads them: the upstream settings become the one list `upstreams`. */
function toConfig(settings: Settings): Config {
  const config: Record<string, unknown> = { ...settings };
  for (const key of Object.keys(UPSTREAM_SETTINGS)) delete config[key];
  return { ...(config as Omit<Config, 'upstreams'>), upstreams: upstreamsOf(settings) };
}

/** Keys naming a secret (`password`, `metricsToken`, `sessionSecret`), not settings about one (`oidcTokenTtl`). */
const SECRET_KEY = /(password|token|secret)$/i;

function masked(value: unknown, key: string): unknown {
  if (value && SECRET_KEY.test(key)) return '***';
  if (typeof value === 'string') return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1***@');
  if (Array.isArray(value)) return value.map((item) => masked(item, ''));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  return value;
}

/** The configuration as it may be logged: passwords, tokens and secrets masked, also in URLs (any scheme) and in the list of upstreams. */
export function describeConfig(config: Config): Record<string, unknown> {
  return masked(config, '') as Record<string, unknown>;
}
