/** Every setting larder has: its type, its parser and its environment variable. Defaults live in config/defaults.json. */
import * as backends from './backend-settings.js';
import * as policy from './policy-settings.js';
import { ConfigError, httpUrl, integerIn, optionalSize, optionalString, parseBoolean, parseDuration, parseSize, parseString, type Parser } from './values.js';

export interface Config extends policy.PolicyConfig, backends.BackendConfig {
  host: string;
  port: number;
  /** Data directory (LMDB, blobs, tmp). */
  data: string;
  /** Upstream simple index URL, or null when disabled (`none`). */
  upstream: string | null;
  offline: boolean;
  /** Base URL clients reach larder at, without trailing slash; null = links are relative (the JSON API and the web pages use the checked Host). */
  publicUrl: string | null;
  /** Largest accepted upload, in bytes. */
  maxUploadSize: number;
  readAuth: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Cache-Control max-age of index pages and JSON documents, in seconds. */
  indexMaxAge: number;
  /** Upstream JSON API base (`…/pypi/`); derived from `upstream` when empty; null = the upstream has none. */
  upstreamJsonApi: string | null;
  upstreamUsername: string | null;
  upstreamPassword: string | null;
  /** Milliseconds. */
  upstreamConnectTimeout: number;
  upstreamHeadersTimeout: number;
  upstreamBodyTimeout: number;
  upstreamRetries: number;
  /** Total time for one upstream project page or JSON document, retries included, ms. */
  upstreamDeadline: number;
  /** How long a request for a stale cached page waits for the upstream before the stale copy is served, ms. */
  staleWait: number;
  /** Largest upstream file (`.metadata` and `.asc` included) larder fetches, in bytes. */
  maxFileSize: number;
  /** Origins (`https://host[:port]`) besides the upstream's own that file URLs may point at. */
  fileHosts: string[];
  /** Bytes kept free on the data filesystem: below this, upstream files are delivered but not kept. */
  diskReserve: number;
  /** Failed logins a minute for one user name from one client address before 429 (an address: three times as many over all names). */
  loginFailureLimit: number;
  /** Freshness of cached upstream project pages and JSON documents, ms. */
  pageTtl: number;
  /** Freshness of the cached upstream root list, ms. */
  rootTtl: number;
  /** How long an upstream 404 is remembered, ms. */
  notFoundTtl: number;
  /** Normalized names of private projects that also show the upstream project's files. */
  mergeAllowList: string[];
  /** Bytes of rendered pages kept in memory. */
  memoryCacheSize: number;
  httpProxy: string | null;
  httpsProxy: string | null;
  noProxy: string | null;
  /** Bearer token /metrics requires; null = open. */
  metricsToken: string | null;
  /** How long a stopping server lets in-flight requests and downloads finish, ms. */
  shutdownGrace: number;
  /** Bound on the bytes of cached upstream files; null = unlimited. Private files never count. */
  cacheMaxSize: number | null;
}

export type ConfigKey = keyof Config;
export type UpstreamSpecOf = policy.UpstreamSpec;

export { ConfigError, parseDuration };

const parseUpstream: Parser<string | null> = (raw, key) => {
  if (raw === null || String(raw).toLowerCase() === 'none' || raw === false) return null;
  const url = httpUrl(raw, key);
  return url.endsWith('/') ? url : `${url}/`;
};

const parsePublicUrl: Parser<string | null> = (raw, key) => {
  if (raw === null || raw === '') return null;
  return httpUrl(raw, key).replace(/\/+$/, '');
};

const parseJsonApi: Parser<string | null> = (raw, key) => {
  if (raw === null || raw === '' || raw === undefined) return '';
  if (String(raw).toLowerCase() === 'none') return null;
  const url = httpUrl(raw, key);
  return url.endsWith('/') ? url : `${url}/`;
};

const parseNameList: Parser<string[]> = (raw, key) => {
  const items = Array.isArray(raw) ? raw.map(String) : String(raw ?? '').split(',');
  const names = items.map((s) => s.trim()).filter(Boolean);
  for (const name of names) {
    if (!/^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$/i.test(name)) throw new ConfigError(key, raw, 'a comma-separated list of project names');
  }
  return names.map((n) => n.replace(/[-_.]+/g, '-').toLowerCase());
};

/** `https://files.example.com, http://10.0.0.5:8080`; a bare host means https. Returns origins. */
const parseOriginList: Parser<string[]> = (raw, key) => {
  const items = Array.isArray(raw) ? raw.map(String) : String(raw ?? '').split(',');
  return items
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
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
const parseLogLevel: Parser<Config['logLevel']> = (raw, key) => {
  const level = String(raw).toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new ConfigError(key, raw, LOG_LEVELS.join(', '));
  return level as Config['logLevel'];
};

export interface Setting<K extends ConfigKey> {
  key: K;
  /** Environment variable(s), first found wins. */
  env: string | readonly string[];
  flag: string;
  parse: Parser<Config[K]>;
  help: string;
}

const setting = <K extends ConfigKey>(key: K, env: string | readonly string[], flag: string, parse: Parser<Config[K]>, help: string): Setting<K> => ({
  key,
  env,
  flag,
  parse,
  help,
});

export const SETTINGS = [
  setting('host', 'LARDER_HOST', '--host', parseString, 'address to listen on'),
  setting('port', 'LARDER_PORT', '--port', integerIn(0, 65535), 'TCP port (0 = any free port)'),
  setting('data', 'LARDER_DATA', '--data', parseString, 'data directory: LMDB metadata, blobs, tmp'),
  setting('upstream', 'LARDER_UPSTREAM', '--upstream', parseUpstream, 'upstream simple index URL, or none'),
  setting('offline', 'LARDER_OFFLINE', '--offline', parseBoolean, 'never contact the upstream; serve only what is cached'),
  setting(
    'publicUrl',
    'LARDER_PUBLIC_URL',
    '--public-url',
    parsePublicUrl,
    "base URL clients use, for absolute links; default: relative links (the JSON API uses the request's Host)",
  ),
  setting('maxUploadSize', 'LARDER_MAX_UPLOAD_SIZE', '--max-upload-size', parseSize, 'largest accepted upload'),
  setting('readAuth', 'LARDER_READ_AUTH', '--read-auth', parseBoolean, 'reads need credentials too'),
  setting('logLevel', 'LARDER_LOG_LEVEL', '--log-level', parseLogLevel, 'log level'),
  setting('indexMaxAge', 'LARDER_INDEX_MAX_AGE', '--index-max-age', integerIn(0, 31_536_000), 'Cache-Control max-age of index pages, seconds'),
  setting(
    'upstreamJsonApi',
    'LARDER_UPSTREAM_JSON_API',
    '--upstream-json-api',
    parseJsonApi,
    'upstream JSON API base; empty = derived (…/simple/ → …/pypi/), none = built from simple pages',
  ),
  setting('upstreamUsername', 'LARDER_UPSTREAM_USERNAME', '--upstream-username', optionalString, 'user name for the upstream (or userinfo in the URL)'),
  setting('upstreamPassword', 'LARDER_UPSTREAM_PASSWORD', '--upstream-password', optionalString, 'password for the upstream'),
  setting('upstreamConnectTimeout', 'LARDER_UPSTREAM_CONNECT_TIMEOUT', '--upstream-connect-timeout', parseDuration, 'time to connect to the upstream'),
  setting(
    'upstreamHeadersTimeout',
    'LARDER_UPSTREAM_HEADERS_TIMEOUT',
    '--upstream-headers-timeout',
    parseDuration,
    'time for the upstream to send response headers',
  ),
  setting('upstreamBodyTimeout', 'LARDER_UPSTREAM_BODY_TIMEOUT', '--upstream-body-timeout', parseDuration, 'longest pause inside an upstream response body'),
  setting(
    'upstreamRetries',
    'LARDER_UPSTREAM_RETRIES',
    '--upstream-retries',
    integerIn(0, 10),
    'retries of idempotent upstream GETs on connection errors and 5xx',
  ),
  setting(
    'upstreamDeadline',
    'LARDER_UPSTREAM_DEADLINE',
    '--upstream-deadline',
    parseDuration,
    'total time for one upstream project page or JSON document, retries included',
  ),
  setting('staleWait', 'LARDER_STALE_WAIT', '--stale-wait', parseDuration, 'how long a stale cached page waits for the upstream before it is served as it is'),
  setting('maxFileSize', 'LARDER_MAX_FILE_SIZE', '--max-file-size', parseSize, 'largest upstream file fetched (.metadata and .asc included)'),
  setting(
    'fileHosts',
    'LARDER_FILE_HOSTS',
    '--file-hosts',
    parseOriginList,
    "origins besides the upstream's own that file URLs may point at (comma-separated)",
  ),
  setting(
    'diskReserve',
    'LARDER_DISK_RESERVE',
    '--disk-reserve',
    parseSize,
    'free space kept on the data filesystem; below it upstream files are delivered, not kept',
  ),
  setting(
    'loginFailureLimit',
    'LARDER_LOGIN_FAILURE_LIMIT',
    '--login-failure-limit',
    integerIn(1, 100_000),
    'failed logins a minute for one user name from one client address before 429 (per address: 3 times as many)',
  ),
  setting('pageTtl', 'LARDER_PAGE_TTL', '--page-ttl', parseDuration, 'freshness of cached upstream project pages and JSON documents'),
  setting('rootTtl', 'LARDER_ROOT_TTL', '--root-ttl', parseDuration, 'freshness of the cached upstream project list'),
  setting('notFoundTtl', 'LARDER_NOT_FOUND_TTL', '--not-found-ttl', parseDuration, 'how long an upstream 404 is remembered'),
  setting('mergeAllowList', 'LARDER_MERGE_ALLOW_LIST', '--merge-allow-list', parseNameList, 'private projects that also show upstream files (comma-separated)'),
  setting('memoryCacheSize', 'LARDER_MEMORY_CACHE_SIZE', '--memory-cache-size', parseSize, 'bytes of ready-to-send pages kept in memory'),
  setting('httpProxy', ['HTTP_PROXY', 'http_proxy'], '--http-proxy', optionalString, 'proxy for http:// upstream requests'),
  setting('httpsProxy', ['HTTPS_PROXY', 'https_proxy'], '--https-proxy', optionalString, 'proxy for https:// upstream requests'),
  setting('noProxy', ['NO_PROXY', 'no_proxy'], '--no-proxy', optionalString, 'hosts reached without the proxy'),
  setting('metricsToken', 'LARDER_METRICS_TOKEN', '--metrics-token', optionalString, 'bearer token that /metrics requires; empty = open'),
  setting('shutdownGrace', 'LARDER_SHUTDOWN_GRACE', '--shutdown-grace', parseDuration, 'time in-flight requests and downloads get to finish on SIGTERM'),
  setting('cacheMaxSize', 'LARDER_CACHE_MAX_SIZE', '--cache-max-size', optionalSize, 'bound on cached upstream files (e.g. 20GB); empty = unlimited'),
  // Supply-chain policy (policy-settings.ts)
  setting(
    'minReleaseAge',
    'LARDER_MIN_RELEASE_AGE',
    '--min-release-age',
    (r, k) => policy.parseMinReleaseAge(r, k),
    'hide upstream files younger than this (e.g. 3d); empty = off',
  ),
  setting(
    'minReleaseAgeUnknown',
    'LARDER_MIN_RELEASE_AGE_UNKNOWN',
    '--min-release-age-unknown',
    (r, k) => policy.parseUnknownAge(r, k),
    'upstream files with no known upload time under the cooldown: allow or deny',
  ),
  setting('deny', 'LARDER_DENY', '--deny', (r, k) => policy.parseRequirements(r, k), 'upstream releases hidden and refused (e.g. evilpkg,requests<2.0)'),
  setting('allow', 'LARDER_ALLOW', '--allow', (r, k) => policy.parseRequirements(r, k), 'when set, only these upstream projects are served'),
  setting('upstreams', 'LARDER_UPSTREAMS', '--upstreams', (r, k) => policy.parseUpstreams(r, k), 'several upstreams, in order (config file; JSON here)'),
  // Shared backends for several larders (backend-settings.ts)
  setting(
    'databaseUrl',
    'LARDER_DATABASE_URL',
    '--database-url',
    backends.parseDatabaseUrl,
    'postgres:// URL of a database shared by several larders; empty = LMDB',
  ),
  setting(
    'blobStore',
    'LARDER_BLOB_STORE',
    '--blob-store',
    backends.parseBlobStore,
    's3://bucket/prefix shared by several larders; empty = files under LARDER_DATA',
  ),
  setting('s3Endpoint', 'LARDER_S3_ENDPOINT', '--s3-endpoint', backends.parseEndpoint, 'URL of an S3-compatible server; empty = AWS'),
  setting('s3Region', 'LARDER_S3_REGION', '--s3-region', optionalString, "S3 region; empty = the SDK's (AWS_REGION, profile, us-east-1)"),
  setting('s3Redirect', 'LARDER_S3_REDIRECT', '--s3-redirect', parseBoolean, 'redirect file downloads to presigned S3 URLs'),
  setting(
    'sharedDownloadWait',
    'LARDER_SHARED_DOWNLOAD_WAIT',
    '--shared-download-wait',
    parseDuration,
    "how long a node waits for another node's download of a file before fetching it itself",
  ),
  setting(
    'sessionSecret',
    'LARDER_SESSION_SECRET',
    '--session-secret',
    backends.parseSessionSecret,
    'secret the web login sessions are signed with, the same on every node; empty = a random key in LARDER_DATA',
  ),
] as const;
