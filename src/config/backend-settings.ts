/**
 * Where the records and the bytes live when several larders share them (docs/operations.md,
 * "Running several larders"): a PostgreSQL database and an S3 bucket. Unset, one larder keeps both under LARDER_DATA.
 */
import { setting } from './setting.js';
import { ConfigError, integerIn, optionalString, parseBoolean, parseDuration, type Parser } from './values.js';

const blank = (raw: unknown) => raw === null || raw === undefined || String(raw).trim() === '';

const parseDatabaseUrl: Parser<string | null> = (raw, key) => {
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

/** One LISTEN connection, one for download locks, at least one pooled (src/store/postgres/database.ts). */
const MIN_DATABASE_CONNECTIONS = 3;

const parseDatabasePool: Parser<number> = (raw, key) => {
  try {
    return integerIn(MIN_DATABASE_CONNECTIONS, 10_000)(raw, key);
  } catch {
    throw new ConfigError(
      key,
      raw,
      `a whole number of connections from ${MIN_DATABASE_CONNECTIONS} (one for LISTEN, one for download locks, one pooled) to 10000`,
    );
  }
};

const parseSessionSecret: Parser<string | null> = (raw, key) => {
  if (blank(raw)) return null;
  const value = String(raw);
  if (value.length < 16) throw new ConfigError(key, '(not shown)', 'a secret of at least 16 characters, the same on every node');
  return value;
};

const parseEndpoint: Parser<string | null> = (raw, key) => {
  if (blank(raw)) return null;
  const value = String(raw).trim();
  if (!/^https?:\/\/[^/\s]+\/?$/.test(value)) throw new ConfigError(key, raw, 'http(s)://host[:port] of the S3-compatible server');
  return value.replace(/\/$/, '');
};

/** At least 100 ms: shorter, S3 could not answer even when well. */
const parseS3Deadline: Parser<number> = (raw, key) => {
  const ms = parseDuration(raw, key);
  if (ms < 100) throw new ConfigError(key, raw, 'a duration of at least 100ms, such as 8s');
  return ms;
};

export const BACKEND_SETTINGS = {
  databaseUrl: setting({
    env: 'LARDER_DATABASE_URL',
    parse: parseDatabaseUrl,
    default: '',
    value: 'URL',
    doc: '`postgres://user:password@host:port/db` of a database shared by several larders (private index, users, tokens, policy, mirror sets, records of cached files); empty = LMDB under `LARDER_DATA` ([docs/operations.md](docs/operations.md#running-several-larders))',
  }),
  databasePool: setting({
    env: 'LARDER_DATABASE_POOL',
    parse: parseDatabasePool,
    default: 10,
    value: 'N',
    doc: "the most connections one larder opens to PostgreSQL in all (a pool of N − 2, the LISTEN and the download-lock connections; at least 3); every node's N together must stay below the server's `max_connections` ([sizing](docs/scale-out.md#sizing-the-database-connections))",
  }),
  blobStore: setting({
    env: 'LARDER_BLOB_STORE',
    parse: parseBlobStore,
    default: '',
    value: 'URL',
    doc: '`s3://bucket/prefix` shared by several larders for private and cached files; empty = files under `LARDER_DATA`',
  }),
  s3Endpoint: setting({
    env: 'LARDER_S3_ENDPOINT',
    parse: parseEndpoint,
    default: '',
    value: 'URL',
    doc: 'URL of an S3-compatible server (MinIO, Ceph, …; path-style requests); empty = AWS',
  }),
  s3Region: setting({
    env: 'LARDER_S3_REGION',
    parse: optionalString,
    default: '',
    value: 'REGION',
    doc: "S3 region; empty = the SDK's (`AWS_REGION`, profile, `us-east-1`). Credentials come from the standard `AWS_*` variables or the instance role",
  }),
  s3Redirect: setting({
    env: 'LARDER_S3_REDIRECT',
    parse: parseBoolean,
    default: false,
    doc: 'answer file downloads with a redirect to a presigned S3 URL instead of streaming them through larder',
  }),
  s3Deadline: setting({
    env: 'LARDER_S3_DEADLINE',
    parse: parseS3Deadline,
    default: '8s',
    value: 'DURATION',
    doc: "how long one S3 request may take, retries included, before the client gets 503 naming the blob store (4× for a request carrying an upload part); keep it well under clients' timeouts (pip's is 15 s)",
  }),
  sharedDownloadWait: setting({
    env: 'LARDER_SHARED_DOWNLOAD_WAIT',
    parse: parseDuration,
    default: '60s',
    value: 'DURATION',
    doc: "how long a node following another node's download of the same upstream file waits for a new byte before fetching the file itself (a node that dies is taken over at once, not after this)",
  }),
  sessionSecret: setting({
    env: 'LARDER_SESSION_SECRET',
    parse: parseSessionSecret,
    default: '',
    value: 'SECRET',
    doc: "secret (16+ characters) the web pages' login sessions and form tokens are signed with; set the same on every node behind one balancer; empty = a random key kept in `LARDER_DATA`",
  }),
};
