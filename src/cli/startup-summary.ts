/**
 * What `larder serve` says at start-up on a terminal: where it listens, its data, upstream, mode and
 * backends in a few lines (host names, never passwords). JSON logs get the whole configuration instead.
 */
import { resolve } from 'node:path';
import { formatBytes } from '../base/units.js';
import type { Config } from '../config/schema.js';

/** `https://user:secret@host/simple/` → `https://host/simple/`. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

function upstreamLine(config: Config): string {
  const [only, ...others] = config.upstreams;
  if (!only) return 'none (private projects only)';
  if (!others.length) return withoutCredentials(only.url);
  return config.upstreams.map((u) => `${u.name} ${withoutCredentials(u.url)}`).join(', ');
}

function backendsLine(config: Config): string {
  const local = (what: string) => `${what} in the data directory`;
  if (config.databaseUrl === null && config.blobStore === null) return local('LMDB + files');
  const db = config.databaseUrl === null ? local('LMDB') : `PostgreSQL ${databaseLocation(config.databaseUrl)}`;
  const endpoint = config.s3Endpoint === null ? '' : ` at ${new URL(config.s3Endpoint).host}`;
  const blobs = config.blobStore === null ? local('files') : `S3 ${config.blobStore}${endpoint}${config.s3Redirect ? ' (downloads redirected)' : ''}`;
  return `${db}, ${blobs}`;
}

/** `postgres://larder:secret@db:5432/larder` → `db:5432/larder`. */
function databaseLocation(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname}`;
}

/** `3d`, `12h`, `90m`: the cooldown as it is usually written. */
function age(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  return `${Math.round(ms / 60_000)}m`;
}

function policyLine(config: Config): string | null {
  const rules = [
    config.minReleaseAge === null ? null : `cooldown ${age(config.minReleaseAge)}`,
    config.deny.length ? `deny ${config.deny.join(', ')}` : null,
    config.allow.length ? `allow only ${config.allow.join(', ')}` : null,
  ].filter((r) => r !== null);
  return rules.length ? rules.join('; ') : null;
}

/** The lines; the first says where larder listens. */
export function startupSummary(config: Config, url: string, version: string): string[] {
  const mode = [
    config.offline ? 'offline (only what is cached is served)' : 'online',
    config.readAuth ? 'reads need credentials' : 'reads open to all',
    config.cacheMaxSize === null ? null : `cache bound ${formatBytes(config.cacheMaxSize)}`,
  ].filter((part) => part !== null);
  const policy = policyLine(config);
  return [
    `larder ${version} listening on ${url} (simple index: ${url}/simple/)`,
    `data      ${resolve(config.data)}`,
    `upstream  ${upstreamLine(config)}`,
    `mode      ${mode.join(', ')}`,
    `backends  ${backendsLine(config)}`,
    ...(policy ? [`policy    ${policy}`] : []),
    `log       level ${config.logLevel}; at debug the whole configuration is logged too`,
  ];
}
