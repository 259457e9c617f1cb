/** What every settings parser shares: the error for a bad value, the parser type, durations. */
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
