/**
 * Where the records and the bytes live when several larders share them (docs/operations.md,
 * "Running several larders"): a PostgreSQL database and an S3 bucket. Unset, one larder keeps both under LARDER_DATA.
 */
import { ConfigError, type Parser } from './values.js';

export interface BackendConfig {
  /** `postgres://…` of the shared database; null = LMDB under the data directory. */
  databaseUrl: string | null;
  /** `s3://bucket/prefix` of the shared blob store; null = files under the data directory. */
  blobStore: string | null;
  /** S3 endpoint of an S3-compatible server (path-style requests); null = AWS's own. */
  s3Endpoint: string | null;
  /** S3 region; null = the SDK's (AWS_REGION, the profile, or us-east-1). */
  s3Region: string | null;
  /** Send file downloads to a presigned S3 URL instead of streaming them through larder. */
  s3Redirect: boolean;
  /** How long a node waits for another node's download of the same file before fetching it itself, ms. */
  sharedDownloadWait: number;
  /** Secret the web sessions' key is derived from, so that every node accepts them; null = a random key per data directory. */
  sessionSecret: string | null;
}

const blank = (raw: unknown) => raw === null || raw === undefined || String(raw).trim() === '';

export const parseDatabaseUrl: Parser<string | null> = (raw, key) => {
  if (blank(raw)) return null;
  const value = String(raw).trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(key, '(not shown)', 'a postgres://user:password@host:port/database URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new ConfigError(key, `${url.protocol}…`, 'a postgres:// URL');
  return value;
};

export const parseBlobStore: Parser<string | null> = (raw, key) => {
  if (blank(raw)) return null;
  const value = String(raw).trim();
  if (!/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(value))
    throw new ConfigError(key, raw, 's3://bucket/prefix (or empty for files under LARDER_DATA)');
  return value;
};

export const parseSessionSecret: Parser<string | null> = (raw, key) => {
  if (blank(raw)) return null;
  const value = String(raw);
  if (value.length < 16) throw new ConfigError(key, '(not shown)', 'a secret of at least 16 characters, the same on every node');
  return value;
};

export const parseEndpoint: Parser<string | null> = (raw, key) => {
  if (blank(raw)) return null;
  const value = String(raw).trim();
  if (!/^https?:\/\/[^/\s]+\/?$/.test(value)) throw new ConfigError(key, raw, 'http(s)://host[:port] of the S3-compatible server');
  return value.replace(/\/$/, '');
};
