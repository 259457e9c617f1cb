/** What every settings parser shares: the error for a bad value, the parser type, durations, sizes, strings, booleans, integers, URLs. */
export class ConfigError extends Error {
  constructor(key: string, value: unknown, expected: string) {
    super(`invalid configuration: ${key}=${JSON.stringify(value)}; expected ${expected}`);
    this.name = 'ConfigError';
  }
}

export type Parser<T> = (raw: unknown, key: string) => T;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, '': 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `30s`, `10m`, `2h`, `1d`; a bare number is seconds. Returns milliseconds. */
export function parseDuration(raw: unknown, key: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|)\s*$/i.exec(String(raw));
  if (!match) throw new ConfigError(key, raw, 'a duration such as 500ms, 30s, 10m, 2h or a number of seconds');
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2]!.toLowerCase()]!);
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
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

export const parseString: Parser<string> = (raw, key) => {
  if (typeof raw !== 'string' || raw === '') throw new ConfigError(key, raw, 'a non-empty string');
  return raw;
};

export const parseBoolean: Parser<boolean> = (raw, key) => {
  if (typeof raw === 'boolean') return raw;
  const text = String(raw).toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  throw new ConfigError(key, raw, 'true or false');
};

export const integerIn =
  (min: number, max: number): Parser<number> =>
  (raw, key) => {
    const value = typeof raw === 'number' ? raw : /^\s*\d+\s*$/.test(String(raw)) ? Number(raw) : NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(key, raw, `an integer from ${min} to ${max}`);
    }
    return value;
  };

export const httpUrl = (raw: unknown, key: string): string => {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new ConfigError(key, raw, 'an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(key, raw, 'an http:// or https:// URL');
  return url.toString();
};

export const optionalString: Parser<string | null> = (raw) => (raw === null || raw === undefined || raw === '' ? null : String(raw));

export const optionalSize: Parser<number | null> = (raw, key) =>
  raw === null || raw === undefined || raw === '' || String(raw).toLowerCase() === 'unlimited' ? null : parseSize(raw, key);

/** The items of a comma-separated setting (or of a list in a configuration file), trimmed, empty ones dropped. */
export function listItems(raw: unknown): string[] {
  const items = Array.isArray(raw) ? raw.map(String) : String(raw ?? '').split(',');
  return items.map((s) => s.trim()).filter(Boolean);
}
