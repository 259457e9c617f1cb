/** Every setting larder has: its type, its parser and its environment variable. Defaults live in config/defaults.json. */

export interface Config {
  host: string;
  port: number;
  /** Data directory (LMDB, blobs, tmp). */
  data: string;
  /** Upstream simple index URL, or null when disabled (`none`). */
  upstream: string | null;
  offline: boolean;
  /** Base URL clients reach larder at, without trailing slash; null = taken from each request. */
  publicUrl: string | null;
  /** Largest accepted upload, in bytes. */
  maxUploadSize: number;
  readAuth: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Cache-Control max-age of index pages and JSON documents, in seconds. */
  indexMaxAge: number;
}

export type ConfigKey = keyof Config;

export class ConfigError extends Error {
  constructor(key: string, value: unknown, expected: string) {
    super(`invalid configuration: ${key}=${JSON.stringify(value)}; expected ${expected}`);
    this.name = 'ConfigError';
  }
}

type Parser<T> = (raw: unknown, key: string) => T;

const SIZE_UNITS: Record<string, number> = {
  '': 1, b: 1, k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, t: 1e12, tb: 1e12,
  kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40,
};

export function parseSize(raw: unknown, key: string): number {
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) return raw;
  const match = typeof raw === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(raw) : null;
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined || Number(match[1]) <= 0) {
    throw new ConfigError(key, raw, 'a size such as 500MB, 2GiB or a number of bytes');
  }
  return Math.floor(Number(match[1]) * unit);
}

const parseString: Parser<string> = (raw, key) => {
  if (typeof raw !== 'string' || raw === '') throw new ConfigError(key, raw, 'a non-empty string');
  return raw;
};

const parseBoolean: Parser<boolean> = (raw, key) => {
  if (typeof raw === 'boolean') return raw;
  const text = String(raw).toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  throw new ConfigError(key, raw, 'true or false');
};

const integerIn = (min: number, max: number): Parser<number> => (raw, key) => {
  const value = typeof raw === 'number' ? raw : /^\s*\d+\s*$/.test(String(raw)) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(key, raw, `an integer from ${min} to ${max}`);
  }
  return value;
};

const httpUrl = (raw: unknown, key: string): string => {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new ConfigError(key, raw, 'an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(key, raw, 'an http:// or https:// URL');
  return url.toString();
};

const parseUpstream: Parser<string | null> = (raw, key) => {
  if (raw === null || String(raw).toLowerCase() === 'none' || raw === false) return null;
  const url = httpUrl(raw, key);
  return url.endsWith('/') ? url : `${url}/`;
};

const parsePublicUrl: Parser<string | null> = (raw, key) => {
  if (raw === null || raw === '') return null;
  return httpUrl(raw, key).replace(/\/+$/, '');
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const parseLogLevel: Parser<Config['logLevel']> = (raw, key) => {
  const level = String(raw).toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new ConfigError(key, raw, LOG_LEVELS.join(', '));
  return level as Config['logLevel'];
};

export interface Setting<K extends ConfigKey> {
  key: K;
  env: string;
  flag: string;
  parse: Parser<Config[K]>;
  help: string;
}

const setting = <K extends ConfigKey>(key: K, env: string, flag: string, parse: Parser<Config[K]>, help: string): Setting<K> =>
  ({ key, env, flag, parse, help });

export const SETTINGS = [
  setting('host', 'LARDER_HOST', '--host', parseString, 'address to listen on'),
  setting('port', 'LARDER_PORT', '--port', integerIn(0, 65535), 'TCP port (0 = any free port)'),
  setting('data', 'LARDER_DATA', '--data', parseString, 'data directory: LMDB metadata, blobs, tmp'),
  setting('upstream', 'LARDER_UPSTREAM', '--upstream', parseUpstream, 'upstream simple index URL, or none'),
  setting('offline', 'LARDER_OFFLINE', '--offline', parseBoolean, 'never contact the upstream; serve only what is cached'),
  setting('publicUrl', 'LARDER_PUBLIC_URL', '--public-url', parsePublicUrl, 'base URL clients use; default: from each request'),
  setting('maxUploadSize', 'LARDER_MAX_UPLOAD_SIZE', '--max-upload-size', parseSize, 'largest accepted upload'),
  setting('readAuth', 'LARDER_READ_AUTH', '--read-auth', parseBoolean, 'reads need credentials too'),
  setting('logLevel', 'LARDER_LOG_LEVEL', '--log-level', parseLogLevel, 'log level'),
  setting('indexMaxAge', 'LARDER_INDEX_MAX_AGE', '--index-max-age', integerIn(0, 31_536_000), 'Cache-Control max-age of index pages, seconds'),
] as const;
