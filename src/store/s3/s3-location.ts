/**
 * Where the blobs live in object storage: `s3://bucket/prefix` parsed and checked, and the object keys
 * derived from it: `<prefix>/sha256/<ab>/<sha256>` for blobs, `<prefix>/tmp/<name>` for uploads in flight,
 * `<prefix>/tmp/parts/<sha256>/<offset>` for the parts of a download in flight (download-parts.ts).
 */

export interface S3Location {
  bucket: string;
  /** Empty, or ends with `/`. */
  prefix: string;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Parses `s3://bucket` or `s3://bucket/some/prefix`; throws a one-line message naming what is wrong. */
export function parseS3Location(value: string): S3Location {
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(value.trim());
  if (!m) throw new Error(`blob store location ${JSON.stringify(value)} is not of the form s3://bucket/prefix`);
  const bucket = m[1]!;
  if (!BUCKET.test(bucket) || bucket.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
    throw new Error(
      `blob store location ${JSON.stringify(value)}: ${JSON.stringify(bucket)} is not a valid S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)`,
    );
  }
  const parts = (m[2] ?? '').split('/').filter((p) => p !== '');
  for (const part of parts) {
    if (part === '.' || part === '..' || /[\u0000-\u001f\u007f\\]/.test(part)) {
      throw new Error(`blob store location ${JSON.stringify(value)}: the prefix may not contain ${JSON.stringify(part)}`);
    }
  }
  return { bucket, prefix: parts.length ? `${parts.join('/')}/` : '' };
}

export class S3Keys {
  readonly blobsPrefix: string;
  readonly tmpPrefix: string;

  constructor(readonly location: S3Location) {
    this.blobsPrefix = `${location.prefix}sha256/`;
    this.tmpPrefix = `${location.prefix}tmp/`;
  }

  blob(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256 hex digest: ${sha256}`);
    return `${this.blobsPrefix}${sha256.slice(0, 2)}/${sha256}`;
  }

  /** The sha256 a listed key is the blob of, or null for anything else under the prefix. */
  shaOf(key: string): string | null {
    if (!key.startsWith(this.blobsPrefix)) return null;
    const [ab, sha, ...rest] = key.slice(this.blobsPrefix.length).split('/');
    return rest.length === 0 && sha && SHA256_HEX.test(sha) && sha.slice(0, 2) === ab ? sha : null;
  }

  tmp(name: string): string {
    return `${this.tmpPrefix}${name}`;
  }

  /** Where the parts of `sha256`'s download are: keys sort by offset (16 digits, zero-padded). */
  partsPrefix(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256 hex digest: ${sha256}`);
    return `${this.tmpPrefix}parts/${sha256}/`;
  }

  part(sha256: string, offset: number): string {
    return `${this.partsPrefix(sha256)}${String(offset).padStart(16, '0')}`;
  }

  /** The offset a listed key of `sha256`'s parts starts at, or null for anything else. */
  partOffset(sha256: string, key: string): number | null {
    const rest = key.slice(this.partsPrefix(sha256).length);
    return key.startsWith(this.partsPrefix(sha256)) && /^\d{16}$/.test(rest) ? Number(rest) : null;
  }

  /** `s3://bucket/prefix`, for messages. */
  toString(): string {
    return `s3://${this.location.bucket}/${this.location.prefix}`;
  }
}
