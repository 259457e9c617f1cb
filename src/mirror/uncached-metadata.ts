/**
 * Core metadata read from the upstream without keeping anything (what a dry run's closure reads): a
 * file's `.metadata`, verified against the hash the index lists for it; or, for an upstream that
 * publishes none, the METADATA inside a wheel, read by range requests (upstream-ranges.ts) or, when the
 * upstream does not honour ranges, from the whole wheel downloaded to larder's tmp directory, verified
 * against the index's hash and size, and removed. A range read checks what the answers say about the
 * file (its size against the index's, one ETag) and the zip's own structure; the wheel's hash can only
 * be checked whole, which the real run does when it downloads it.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { formatBytes } from '../base/units.js';
import type { FileEntry } from '../model/documents.js';
import { MAX_METADATA_BYTES } from '../download/cached-file-target.js';
import { DownloadVerifier, strongestHash, VerificationError } from '../download/download-verifier.js';
import { readWheelMetadata } from '../archive/dist-metadata.js';
import type { UpstreamClient, UpstreamResponse } from '../upstream/client.js';
import { discard, statusError } from '../upstream/read-body.js';
import { UpstreamError } from '../upstream/upstream-error.js';
import { openByRanges } from './upstream-ranges.js';

export interface UncachedMetadataOptions {
  /** Total time for each request that is not a whole file (a `.metadata`, a range), ms. */
  deadline: number;
  /** LARDER_MAX_FILE_SIZE. */
  maxFileSize: number;
  /** A fresh path in larder's tmp directory. */
  tmpPath: () => string;
}

/** How a wheel's METADATA was read. */
export type WheelRead = 'ranges' | 'download';

async function verifiedBody(res: UpstreamResponse, verifier: DownloadVerifier, onBytes: (n: number) => void): Promise<AsyncIterable<Buffer>> {
  const declared = Number(res.headers['content-length']);
  try {
    if (res.headers['content-length'] !== undefined && Number.isSafeInteger(declared)) verifier.announced(declared);
  } catch (err) {
    discard(res);
    throw err;
  }
  return (async function* () {
    try {
      for await (const chunk of res.body) {
        verifier.add(chunk as Buffer);
        onBytes((chunk as Buffer).length);
        yield chunk as Buffer;
      }
    } catch (err) {
      if (err instanceof VerificationError) throw err;
      throw res.describe(err);
    } finally {
      if (!res.body.destroyed) discard(res);
    }
    await verifier.finish();
  })();
}

/** The error of `work`, its message led by the name of the file it concerns. */
async function naming<T>(filename: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw new Error(`${filename}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

export class UncachedMetadata {
  /** Origins that answered a range with the whole file: their wheels are downloaded whole at once. */
  private readonly ignoresRanges = new Set<string>();

  constructor(
    private readonly client: Pick<UpstreamClient, 'get'>,
    private readonly options: UncachedMetadataOptions,
  ) {}

  /** The `.metadata` of a file the index says has one. */
  coreMetadata(file: FileEntry, onBytes: (n: number) => void): Promise<Buffer> {
    return naming(`${file.filename}.metadata`, this.readCoreMetadata(file, onBytes));
  }

  /** The METADATA inside a wheel, by ranges when the upstream honours them, else from a temporary download. */
  wheelMetadata(file: FileEntry, onBytes: (n: number) => void): Promise<{ metadata: Buffer; read: WheelRead }> {
    return naming(file.filename, this.readWheelMetadata(file, onBytes));
  }

  private async readCoreMetadata(file: FileEntry, onBytes: (n: number) => void): Promise<Buffer> {
    const res = await this.client.get(`${file.sourceUrl}.metadata`, { deadline: this.options.deadline });
    if (res.status !== 200) {
      discard(res);
      throw statusError(res);
    }
    const hash = file.coreMetadata === true || file.coreMetadata === false ? null : strongestHash(file.coreMetadata);
    const verifier = new DownloadVerifier({ hash, size: null }, Math.min(MAX_METADATA_BYTES, this.options.maxFileSize));
    const parts: Buffer[] = [];
    for await (const chunk of await verifiedBody(res, verifier, onBytes)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  private async readWheelMetadata(file: FileEntry, onBytes: (n: number) => void): Promise<{ metadata: Buffer; read: WheelRead }> {
    const { maxFileSize, deadline } = this.options;
    if (file.size !== null && file.size > maxFileSize) {
      throw new UpstreamError(`the index lists it at ${formatBytes(file.size)}, more than LARDER_MAX_FILE_SIZE (${formatBytes(maxFileSize)})`, 'invalid');
    }
    const origin = new URL(file.sourceUrl).origin;
    if (!this.ignoresRanges.has(origin)) {
      const opened = await openByRanges(this.client, file.sourceUrl, { deadline, expectedSize: file.size, maxBytes: maxFileSize, onBytes });
      if (opened.kind === 'ranges') return { metadata: await readWheelMetadata(opened.file, file.filename), read: 'ranges' };
      this.ignoresRanges.add(origin);
    }
    // As a download into the cache: no total deadline, only the idle time-out.
    const res = await this.client.get(file.sourceUrl);
    if (res.status !== 200) {
      discard(res);
      throw statusError(res);
    }
    const path = this.options.tmpPath();
    try {
      const verifier = new DownloadVerifier({ hash: strongestHash(file.hashes), size: file.size }, maxFileSize);
      await pipeline(await verifiedBody(res, verifier, onBytes), createWriteStream(path));
      return { metadata: await readWheelMetadata(path, file.filename), read: 'download' };
    } finally {
      await rm(path, { force: true });
    }
  }
}
