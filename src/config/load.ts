/** Loads the configuration: config/defaults.json, then an optional JSON or TOML file, then the environment, then flags. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lazyRequire } from '../base/lazy-require.js';
import { ConfigError, SETTINGS, type Config, type ConfigKey } from './schema.js';

const DEFAULTS_PATH = fileURLToPath(new URL('../../../config/defaults.json', import.meta.url));
const DEFAULTS_PATH_SOURCE = fileURLToPath(new URL('../../config/defaults.json', import.meta.url));

function readJson(path: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(what, path, `a readable JSON file (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  const toml = path.toLowerCase().endsWith('.toml');
  try {
    const value: unknown = toml ? (lazyRequire('smol-toml') as typeof import('smol-toml')).parse(text) : JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch (err) {
    if (toml) throw new ConfigError(what, path, `a valid TOML file (${(err as Error).message.split('\n')[0]})`);
  }
  throw new ConfigError(what, path, 'a file holding one JSON object');
}

export function readDefaults(): Record<string, unknown> {
  try {
    return readJson(DEFAULTS_PATH_SOURCE, 'defaults');
  } catch {
    return readJson(DEFAULTS_PATH, 'defaults');
  }
}

export interface ConfigSources {
  env?: NodeJS.ProcessEnv;
  /** Raw flag values by config key, already split from argv. */
  flags?: Partial<Record<ConfigKey, unknown>>;
  /** Overrides used by tests and embedders (after flags). */
  overrides?: Partial<Config>;
}

export function loadConfig({ env = {}, flags = {}, overrides = {} }: ConfigSources = {}): Config {
  const raw: Record<string, unknown> = { ...readDefaults() };
  const file = env.LARDER_CONFIG;
  if (file) Object.assign(raw, readJson(file, 'LARDER_CONFIG'));
  const known = new Set<string>(SETTINGS.map((s) => s.key));
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) throw new ConfigError(key, raw[key], `one of the known keys (${[...known].join(', ')})`);
  }
  const config: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    let value = raw[s.key];
    let name: string = s.key;
    const envName = (typeof s.env === 'string' ? [s.env] : s.env).find((n) => env[n] !== undefined);
    if (envName) {
      value = env[envName];
      name = envName;
    }
    if (flags[s.key] !== undefined) {
      value = flags[s.key];
      name = s.flag;
    }
    config[s.key] = s.parse(value, name);
  }
  const result = { ...(config as unknown as Config), ...overrides };
  if (result.upstreamJsonApi === '') result.upstreamJsonApi = deriveJsonApi(result.upstream);
  return result;
}

/** `https://pypi.org/simple/` → `https://pypi.org/pypi/`; any other path: its `simple/` segment replaced, else `pypi/` appended. */
export function deriveJsonApi(upstream: string | null): string | null {
  if (!upstream) return null;
  const url = new URL(upstream);
  url.username = '';
  url.password = '';
  url.pathname = /\/simple\/$/.test(url.pathname) ? url.pathname.replace(/simple\/$/, 'pypi/') : `${url.pathname.replace(/\/?$/, '/')}pypi/`;
  return url.toString();
}

/** The configuration as it may be logged: credentials in URLs masked. */
export function describeConfig(config: Config): Record<string, unknown> {
  const masked: Record<string, unknown> = { ...config };
  for (const [key, value] of Object.entries(masked)) {
    if (typeof value === 'string' && /^https?:\/\/[^/]*@/.test(value)) {
      masked[key] = value.replace(/\/\/[^/@]*@/, '//***@');
    }
    if (/password|token/i.test(key) && value) masked[key] = '***';
  }
  return masked;
}
