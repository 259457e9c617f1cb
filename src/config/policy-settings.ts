/**
 * The supply-chain policy's settings (release cooldown, deny and allow lists) and the list of upstreams,
 * with their parsers. docs/policy.md describes what they do.
 */
import { parseRequirementList } from '../model/requirements.js';
import { ConfigError, parseDuration, type Parser } from './values.js';

export interface UpstreamSpec {
  /** Names the upstream in headers, metrics, logs and its cache. */
  name: string;
  /** Simple index URL, ending in `/`. */
  url: string;
  /** Names or globs of the projects that come only from this upstream; null = any project it has. */
  projects: string[] | null;
  username: string | null;
  password: string | null;
}

export interface PolicyConfig {
  /** Upstream files younger than this are held back, ms; null = off. */
  minReleaseAge: number | null;
  /** What happens to upstream files with no known upload time while the cooldown is on. */
  minReleaseAgeUnknown: 'allow' | 'deny';
  /** PEP 508 requirements whose upstream releases are hidden and refused. */
  deny: string[];
  /** When not empty, only upstream projects matching one of these requirements are served. */
  allow: string[];
  /** Several upstreams, in order; empty = the one `upstream`. */
  upstreams: UpstreamSpec[];
}

export const parseMinReleaseAge: Parser<number | null> = (raw, key) => {
  if (raw === null || raw === undefined || raw === '' || raw === false || String(raw).toLowerCase() === 'off') return null;
  return parseDuration(raw, key) || null;
};

export const parseUnknownAge: Parser<'allow' | 'deny'> = (raw, key) => {
  const value = String(raw ?? 'allow').toLowerCase();
  if (value !== 'allow' && value !== 'deny') throw new ConfigError(key, raw, 'allow or deny');
  return value;
};

export const parseRequirements: Parser<string[]> = (raw, key) => {
  if (raw === null || raw === undefined || raw === '') return [];
  if (typeof raw !== 'string' && !(Array.isArray(raw) && raw.every((item) => typeof item === 'string'))) {
    throw new ConfigError(key, raw, 'a comma-separated list (or an array) of requirements such as evilpkg,requests<2.0');
  }
  try {
    return parseRequirementList(raw as string | string[]).map((r) => r.text);
  } catch (err) {
    throw new ConfigError(key, raw, `a comma-separated list of requirements such as evilpkg,requests<2.0 (${(err as Error).message})`);
  }
};

const UPSTREAM_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;
const EXPECTED_UPSTREAMS = 'a list of {name, url, projects?, username?, password?} with distinct names';

function parseUpstreamSpec(item: unknown, key: string): UpstreamSpec {
  const fail = (what: string) => new ConfigError(key, item, `${EXPECTED_UPSTREAMS} (${what})`);
  if (!item || typeof item !== 'object' || Array.isArray(item)) throw fail('each entry a table or object');
  const { name, url, projects, username, password, ...rest } = item as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw fail(`unknown field ${unknown}`);
  if (typeof name !== 'string' || !UPSTREAM_NAME.test(name)) throw fail('name: letters, digits, ".", "_", "-"');
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    throw fail(`url of ${name}: an http:// or https:// URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw fail(`url of ${name}: an http:// or https:// URL`);
  const list = projects === undefined || projects === null ? null : Array.isArray(projects) ? projects : String(projects).split(',');
  if (list && !list.every((p) => typeof p === 'string' && /^[A-Za-z0-9*?][A-Za-z0-9._*?-]*$/.test(p.trim()))) {
    throw fail(`projects of ${name}: project names or globs such as torch*`);
  }
  const optional = (v: unknown) => (v === undefined || v === null || v === '' ? null : String(v));
  const href = parsed.toString();
  return {
    name,
    url: href.endsWith('/') ? href : `${href}/`,
    projects: list ? list.map((p) => (p as string).trim()) : null,
    username: optional(username),
    password: optional(password),
  };
}

/** The config file's `upstreams` (or LARDER_UPSTREAMS as JSON). */
export const parseUpstreams: Parser<UpstreamSpec[]> = (raw, key) => {
  if (raw === null || raw === undefined || raw === '') return [];
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ConfigError(key, raw, `${EXPECTED_UPSTREAMS}, as JSON`);
    }
  }
  if (!Array.isArray(value)) throw new ConfigError(key, raw, EXPECTED_UPSTREAMS);
  const specs = value.map((item) => parseUpstreamSpec(item, key));
  const names = new Set(specs.map((s) => s.name.toLowerCase()));
  if (names.size !== specs.length) throw new ConfigError(key, raw, EXPECTED_UPSTREAMS);
  return specs;
};
