/**
 * The upstream's settings: the one-upstream settings (`LARDER_UPSTREAM`, its credentials, time-outs,
 * retries, deadline, JSON API) and the `upstreams` list. At load time both become one list, `upstreams`,
 * each entry carrying its own per-upstream settings: `LARDER_UPSTREAM` is the first entry when no list is given.
 */
import { setting } from './setting.js';
import { ConfigError, httpUrl, integerIn, optionalString, parseDuration, type Parser } from './values.js';

const parseUpstream: Parser<string | null> = (raw, key) => {
  if (raw === null || String(raw).toLowerCase() === 'none' || raw === false) return null;
  const url = httpUrl(raw, key);
  return url.endsWith('/') ? url : `${url}/`;
};

/** '' = derived from the upstream's URL (done at load time); null = the upstream has no JSON API. */
const parseJsonApi: Parser<string | null> = (raw, key) => {
  if (raw === null || raw === '' || raw === undefined) return '';
  if (String(raw).toLowerCase() === 'none') return null;
  const url = httpUrl(raw, key);
  return url.endsWith('/') ? url : `${url}/`;
};

/** The settings each upstream has (an `upstreams` entry names them without `upstream`). */
const PER_UPSTREAM_SETTINGS = {
  upstreamJsonApi: setting({
    env: 'LARDER_UPSTREAM_JSON_API',
    parse: parseJsonApi,
    default: '',
    value: 'URL',
    perUpstream: 'own',
    doc: 'upstream JSON API base; empty = derived (`…/simple/` → `…/pypi/`), `none` = built from simple pages',
  }),
  upstreamUsername: setting({
    env: 'LARDER_UPSTREAM_USERNAME',
    parse: optionalString,
    default: '',
    value: 'NAME',
    perUpstream: 'own',
    doc: 'user name for the upstream (or userinfo in the URL)',
  }),
  upstreamPassword: setting({
    env: 'LARDER_UPSTREAM_PASSWORD',
    parse: optionalString,
    default: '',
    value: 'PASSWORD',
    perUpstream: 'own',
    doc: 'password for the upstream',
  }),
  upstreamConnectTimeout: setting({
    env: 'LARDER_UPSTREAM_CONNECT_TIMEOUT',
    parse: parseDuration,
    default: '5s',
    value: 'DURATION',
    perUpstream: 'every',
    doc: 'time to connect to the upstream',
  }),
  upstreamHeadersTimeout: setting({
    env: 'LARDER_UPSTREAM_HEADERS_TIMEOUT',
    parse: parseDuration,
    default: '15s',
    value: 'DURATION',
    perUpstream: 'every',
    doc: 'time for the upstream to send response headers',
  }),
  upstreamBodyTimeout: setting({
    env: 'LARDER_UPSTREAM_BODY_TIMEOUT',
    parse: parseDuration,
    default: '30s',
    value: 'DURATION',
    perUpstream: 'every',
    doc: 'longest pause inside an upstream response body',
  }),
  upstreamRetries: setting({
    env: 'LARDER_UPSTREAM_RETRIES',
    parse: integerIn(0, 10),
    default: 2,
    value: 'N',
    perUpstream: 'every',
    doc: 'retries of idempotent upstream GETs on connection errors and 5xx',
  }),
  upstreamDeadline: setting({
    env: 'LARDER_UPSTREAM_DEADLINE',
    parse: parseDuration,
    default: '10s',
    value: 'DURATION',
    perUpstream: 'every',
    doc: 'total time for one upstream project page or JSON document, retries included (then 504, or the stale copy)',
  }),
};

type PerUpstreamKey = keyof typeof PER_UPSTREAM_SETTINGS;
type FieldOf<K> = K extends `upstream${infer Rest}` ? Uncapitalize<Rest> : never;
const fieldOf = <K extends PerUpstreamKey>(key: K) => (key.charAt(8).toLowerCase() + key.slice(9)) as FieldOf<K>;
const PER_UPSTREAM_KEYS = Object.keys(PER_UPSTREAM_SETTINGS) as PerUpstreamKey[];

/** An upstream's own settings, by field name (`retries`, `deadline`, `jsonApi`, …). */
type PerUpstream = { [K in PerUpstreamKey as FieldOf<K>]: ReturnType<(typeof PER_UPSTREAM_SETTINGS)[K]['parse']> };

/** An entry of the `upstreams` setting as given: the per-upstream fields it leaves out take their defaults at load time. */
export interface UpstreamEntry extends Partial<PerUpstream> {
  /** Names the upstream in headers, metrics, logs and its cache. */
  name: string;
  /** Simple index URL, ending in `/`. */
  url: string;
  /** Names or globs of the projects that come only from this upstream; null = any project it has. */
  projects: string[] | null;
}

/** One upstream as the loaded configuration has it: every per-upstream setting filled in. */
export interface Upstream extends Pick<UpstreamEntry, 'name' | 'url' | 'projects'>, PerUpstream {
  /** JSON API base (`…/pypi/`); null = the upstream has none. */
  jsonApi: string | null;
  /** null: the default cache, kept by the first upstream (so a single LARDER_UPSTREAM keeps the cache it had); else a cache of its own, named after it. */
  cacheNamespace: string | null;
}

const UPSTREAM_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;
const EXPECTED_UPSTREAMS = `a list of {name, url, projects?, ${PER_UPSTREAM_KEYS.map((k) => `${fieldOf(k)}?`).join(', ')}} with distinct names`;

function parseUpstreamEntry(item: unknown, key: string): UpstreamEntry {
  const fail = (what: string) => new ConfigError(key, item, `${EXPECTED_UPSTREAMS} (${what})`);
  if (!item || typeof item !== 'object' || Array.isArray(item)) throw fail('each entry a table or object');
  const { name, url, projects, ...rest } = item as Record<string, unknown>;
  const fields = new Set<string>(PER_UPSTREAM_KEYS.map(fieldOf));
  const unknown = Object.keys(rest).find((field) => !fields.has(field));
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
  const href = parsed.toString();
  const entry: UpstreamEntry = { name, url: href.endsWith('/') ? href : `${href}/`, projects: list ? list.map((p) => (p as string).trim()) : null };
  for (const k of PER_UPSTREAM_KEYS) {
    const field = fieldOf(k);
    if (rest[field] !== undefined) Object.assign(entry, { [field]: PER_UPSTREAM_SETTINGS[k].parse(rest[field], `${key}[${name}].${field}`) });
  }
  return entry;
}

/** The config file's `upstreams` (or LARDER_UPSTREAMS as JSON). */
const parseUpstreams: Parser<UpstreamEntry[]> = (raw, key) => {
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
  const entries = value.map((item) => parseUpstreamEntry(item, key));
  const names = new Set(entries.map((s) => s.name.toLowerCase()));
  if (names.size !== entries.length) throw new ConfigError(key, raw, EXPECTED_UPSTREAMS);
  return entries;
};

export const UPSTREAM_SETTINGS = {
  upstream: setting({
    env: 'LARDER_UPSTREAM',
    parse: parseUpstream,
    default: 'https://pypi.org/simple/',
    value: 'URL',
    doc: 'upstream simple index URL, or `none`',
  }),
  ...PER_UPSTREAM_SETTINGS,
  upstreams: setting({
    env: 'LARDER_UPSTREAMS',
    parse: parseUpstreams,
    default: '',
    value: 'JSON',
    doc: 'several upstreams, in order: `[{name, url, projects?, …}]` (config file; JSON in the variable); replaces `upstream`; an entry may also set the upstream settings above, named without `upstream` (`retries`, `jsonApi`, `username`, …) ([docs/policy.md](docs/policy.md))',
  }),
};

/** The upstream settings as loaded (before they become `upstreams`). */
export type UpstreamSettings = { [K in keyof typeof UPSTREAM_SETTINGS]: ReturnType<(typeof UPSTREAM_SETTINGS)[K]['parse']> };

/** `https://pypi.org/simple/` → `https://pypi.org/pypi/`; any other path: its `simple/` segment replaced, else `pypi/` appended. */
function deriveJsonApi(upstream: string): string {
  const url = new URL(upstream);
  url.username = '';
  url.password = '';
  url.pathname = /\/simple\/$/.test(url.pathname) ? url.pathname.replace(/simple\/$/, 'pypi/') : `${url.pathname.replace(/\/?$/, '/')}pypi/`;
  return url.toString();
}

/**
 * The one list of upstreams: `upstreams` when given (each entry's missing settings from the `every` settings
 * and the defaults), else `upstream` (named after its host, with every upstream setting), else none.
 */
export function upstreamsOf(settings: UpstreamSettings): Upstream[] {
  const listed = settings.upstreams.length > 0;
  const entries: UpstreamEntry[] = listed
    ? settings.upstreams
    : settings.upstream
      ? [{ name: new URL(settings.upstream).hostname, url: settings.upstream, projects: null }]
      : [];
  return entries.map((entry, i) => {
    const filled = { ...entry } as Record<string, unknown>;
    for (const k of PER_UPSTREAM_KEYS) {
      const field = fieldOf(k);
      if (filled[field] !== undefined) continue;
      const spec = PER_UPSTREAM_SETTINGS[k];
      filled[field] = !listed || spec.perUpstream === 'every' ? settings[k] : spec.parse(spec.default, k);
    }
    const upstream = filled as unknown as Upstream;
    return {
      ...upstream,
      jsonApi: upstream.jsonApi === '' ? deriveJsonApi(entry.url) : upstream.jsonApi,
      cacheNamespace: i === 0 ? null : entry.name,
    };
  });
}
