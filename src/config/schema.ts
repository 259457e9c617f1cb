/**
 * Every setting larder has, each declared once (setting.ts): its environment variable, parser, default,
 * help and README text. The configuration's type, the loading (load.ts), `--help` and the README's
 * settings table all come from here.
 */
import { AUDIT_SETTINGS } from './audit-settings.js';
import { BACKEND_SETTINGS } from './backend-settings.js';
import { OIDC_SETTINGS } from './oidc-settings.js';
import { POLICY_SETTINGS } from './policy-settings.js';
import { flagOf, setting, type SettingSpec } from './setting.js';
import { UPSTREAM_SETTINGS, type Upstream, type UpstreamSettings } from './upstream-settings.js';
import {
  ConfigError,
  httpUrl,
  integerIn,
  listItems,
  optionalSize,
  optionalString,
  parseBoolean,
  parseDuration,
  parseSize,
  parseString,
  type Parser,
} from './values.js';

export type { Upstream };
export { ConfigError, parseDuration };

const parsePublicUrl: Parser<string | null> = (raw, key) => {
  if (raw === null || raw === '') return null;
  return httpUrl(raw, key).replace(/\/+$/, '');
};

const parseNameList: Parser<string[]> = (raw, key) => {
  const names = listItems(raw);
  for (const name of names) {
    if (!/^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$/i.test(name)) throw new ConfigError(key, raw, 'a comma-separated list of project names');
  }
  return names.map((n) => n.replace(/[-_.]+/g, '-').toLowerCase());
};

/** `https://files.example.com, http://10.0.0.5:8080`; a bare host means https. Returns origins. */
const parseOriginList: Parser<string[]> = (raw, key) => {
  const items = listItems(raw);
  return items.map((item) => {
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(item) ? item : `https://${item}`);
    } catch {
      throw new ConfigError(key, raw, 'a comma-separated list of origins such as https://files.example.com');
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.pathname.replace(/\/$/, '') || url.search) {
      throw new ConfigError(key, raw, 'a comma-separated list of origins such as https://files.example.com (no path)');
    }
    return url.origin;
  });
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];
const parseLogLevel: Parser<LogLevel> = (raw, key) => {
  const level = String(raw).toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new ConfigError(key, raw, LOG_LEVELS.join(', '));
  return level as LogLevel;
};

const CORE_SETTINGS = {
  host: setting({ env: 'LARDER_HOST', parse: parseString, default: '127.0.0.1', value: 'ADDRESS', doc: 'address to listen on' }),
  port: setting({ env: 'LARDER_PORT', parse: integerIn(0, 65535), default: 3142, value: 'PORT', doc: 'TCP port (0 = any free port)' }),
  data: setting({ env: 'LARDER_DATA', parse: parseString, default: './data', value: 'DIR', doc: 'data directory: LMDB metadata, blobs, tmp' }),
  offline: setting({ env: 'LARDER_OFFLINE', parse: parseBoolean, default: false, doc: 'never contact the upstream; serve only what is cached' }),
  publicUrl: setting({
    env: 'LARDER_PUBLIC_URL',
    parse: parsePublicUrl,
    default: '',
    value: 'URL',
    doc: "base URL clients use, for absolute links; default: relative links (the JSON API uses the request's Host)",
  }),
  maxUploadSize: setting({ env: 'LARDER_MAX_UPLOAD_SIZE', parse: parseSize, default: '1GB', value: 'SIZE', doc: 'largest accepted upload' }),
  readAuth: setting({ env: 'LARDER_READ_AUTH', parse: parseBoolean, default: false, doc: 'reads need credentials too' }),
  logLevel: setting({ env: 'LARDER_LOG_LEVEL', parse: parseLogLevel, default: 'info', value: 'LEVEL', doc: 'log level' }),
  indexMaxAge: setting({
    env: 'LARDER_INDEX_MAX_AGE',
    parse: integerIn(0, 31_536_000),
    default: 600,
    value: 'SECONDS',
    doc: 'Cache-Control max-age of index pages, seconds',
  }),
  staleWait: setting({
    env: 'LARDER_STALE_WAIT',
    parse: parseDuration,
    default: '3s',
    value: 'DURATION',
    doc: 'how long a request for a stale cached page waits for the upstream before the stale copy is served (revalidation goes on)',
  }),
  maxFileSize: setting({
    env: 'LARDER_MAX_FILE_SIZE',
    parse: parseSize,
    default: '10GB',
    value: 'SIZE',
    doc: 'largest upstream file larder fetches, `.metadata` and `.asc` included',
  }),
  fileHosts: setting({
    env: 'LARDER_FILE_HOSTS',
    parse: parseOriginList,
    default: '',
    value: 'ORIGINS',
    doc: "origins (`https://host[:port]`) besides the upstream's own that file URLs may point at (comma-separated)",
  }),
  diskReserve: setting({
    env: 'LARDER_DISK_RESERVE',
    parse: parseSize,
    default: '500MB',
    value: 'SIZE',
    doc: 'free space kept on the data filesystem; below it upstream files are delivered but not kept',
  }),
  loginFailureLimit: setting({
    env: 'LARDER_LOGIN_FAILURE_LIMIT',
    parse: integerIn(1, 100_000),
    default: 10,
    value: 'N',
    doc: 'failed logins a minute for one user name from one client address before larder answers 429 (an address may fail three times as often over all names)',
  }),
  pageTtl: setting({
    env: 'LARDER_PAGE_TTL',
    parse: parseDuration,
    default: '10m',
    value: 'DURATION',
    doc: 'freshness of cached upstream project pages and JSON documents',
  }),
  rootTtl: setting({ env: 'LARDER_ROOT_TTL', parse: parseDuration, default: '1h', value: 'DURATION', doc: 'freshness of the cached upstream project list' }),
  notFoundTtl: setting({ env: 'LARDER_NOT_FOUND_TTL', parse: parseDuration, default: '1m', value: 'DURATION', doc: 'how long an upstream 404 is remembered' }),
  mergeAllowList: setting({
    env: 'LARDER_MERGE_ALLOW_LIST',
    parse: parseNameList,
    default: '',
    value: 'NAMES',
    doc: 'private projects that also show upstream files (comma-separated)',
  }),
  memoryCacheSize: setting({
    env: 'LARDER_MEMORY_CACHE_SIZE',
    parse: parseSize,
    default: '32MB',
    value: 'SIZE',
    doc: 'memory for ready-to-send pages; a quarter more holds small file bodies, an eighth rendered descriptions (44 MB in all by default)',
  }),
  httpProxy: setting({ env: ['HTTP_PROXY', 'http_proxy'], parse: optionalString, default: '', value: 'URL', doc: 'proxy for `http://` upstream requests' }),
  httpsProxy: setting({ env: ['HTTPS_PROXY', 'https_proxy'], parse: optionalString, default: '', value: 'URL', doc: 'proxy for `https://` upstream requests' }),
  noProxy: setting({ env: ['NO_PROXY', 'no_proxy'], parse: optionalString, default: '', value: 'HOSTS', doc: 'hosts reached without the proxy' }),
  metricsToken: setting({
    env: 'LARDER_METRICS_TOKEN',
    parse: optionalString,
    default: '',
    value: 'TOKEN',
    doc: 'bearer token that `/metrics` requires; empty = open',
  }),
  shutdownGrace: setting({
    env: 'LARDER_SHUTDOWN_GRACE',
    parse: parseDuration,
    default: '30s',
    value: 'DURATION',
    doc: 'time in-flight requests and downloads get to finish on SIGTERM',
  }),
  cacheMaxSize: setting({
    env: 'LARDER_CACHE_MAX_SIZE',
    parse: optionalSize,
    default: '',
    value: 'SIZE',
    doc: 'bound on cached upstream files (e.g. `20GB`); empty = unlimited',
  }),
};

/** Every setting by config key, in the order `--help` and the README list them. */
export const SCHEMA = { ...CORE_SETTINGS, ...UPSTREAM_SETTINGS, ...POLICY_SETTINGS, ...BACKEND_SETTINGS, ...OIDC_SETTINGS, ...AUDIT_SETTINGS };

export type SettingKey = keyof typeof SCHEMA;

/** The settings as parsed, before the upstream settings become `upstreams`: what flags, variables, files and `overrides` set. */
export type Settings = { [K in SettingKey]: ReturnType<(typeof SCHEMA)[K]['parse']> };

/** The loaded configuration: the settings, with the upstream settings folded into the list `upstreams` (upstream-settings.ts). */
export type Config = Omit<Settings, keyof UpstreamSettings> & { upstreams: Upstream[] };

export interface Setting extends SettingSpec<unknown> {
  key: SettingKey;
  flag: string;
  /** `env` as a list, in the order they are looked for. */
  envs: readonly string[];
}

export const SETTINGS: readonly Setting[] = Object.entries(SCHEMA).map(([key, spec]) => ({
  ...spec,
  key: key as SettingKey,
  flag: flagOf(key),
  envs: typeof spec.env === 'string' ? [spec.env] : spec.env,
}));
