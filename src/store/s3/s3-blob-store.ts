/**
 * The blob store in S3 (or an S3-compatible server): each blob is the object `<prefix>/sha256/<ab>/<sha256>`
 * in the bucket, written as s3-upload.ts says (visible only once whole). Uploads and downloads in flight are
 * local temporary files under `<dataDir>/tmp`. Blobs are immutable and removed only through `remove`, so a
 * blob seen once is remembered with its size (bounded, for a while): `hasSync` and `size` answer from that
 * memory.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type Clock, systemClock } from '../../base/clock.js';
import type { BlobStore, GrowingCommit } from '../blob-store.js';
import type { DownloadParts } from '../download-parts.js';
import { dataLayout } from '../data-layout.js';
import { freshTmpPath, purgeTmpDir } from '../tmp-dir.js';
import { createS3Client, type S3ClientOptions } from './s3-client.js';
import { describeS3Error, isNotFound } from './s3-errors.js';
import { parseS3Location, S3Keys } from './s3-location.js';
import { S3DownloadParts } from './s3-download-parts.js';
import { purgeAbandonedUploads } from './s3-purge.js';
import { GrowingUpload } from './s3-growing-upload.js';
import { uploadFile } from './s3-upload.js';

export interface S3BlobStoreOptions extends S3ClientOptions {
  /** `s3://bucket/prefix`. */
  location: string;
  /** The node's data directory: in-flight files go to its tmp/. */
  dataDir: string;
  /** Whether `directUrl` hands out presigned URLs (else it answers null). */
  redirect: boolean;
  /** How long a presigned URL is valid. Default 300 s. */
  presignedUrlSeconds?: number;
  /** Bytes per multipart part (at least 5 MiB); files no larger go in one PUT. Default 8 MiB. */
  partSize?: number;
  /** Parts uploaded at once per file. Default 4. */
  queueSize?: number;
  /** Keys per listing request. Default 1000 (S3's most). */
  listPageSize?: number;
  /** Temporary keys and unfinished uploads younger than this are another node's work in flight: purgeTmp spares them. Default 1 h. */
  abandonedAfterMs?: number;
  /** Hears every S3 round trip: its operation, how long it took and whether it succeeded (a missing blob is a success). */
  observe?: (operation: string, ms: number, ok: boolean) => void;
  /** Wall clock, for the time a blob committed again counts as new from and for purging. Default: the system's. */
  clock?: Clock;
  /** Monotonic clock (ms), for durations and the memory of seen blobs. */
  monotonicMs?: () => number;
  /** An S3 client to use instead of one built from these options. */
  client?: S3Client;
}

/** How long a blob seen in the bucket is taken to be there without asking again (another node may remove it). */
const SEEN_FOR_MS = 10 * 60_000;
const SEEN_MAX = 100_000;
/** User metadata set when an existing blob is committed again (S3's LastModified is not moved by every server). */
const COMMITTED_AT = 'larder-committed-at';

/** A value for `filename*=UTF-8''…`: percent-encoded UTF-8, with the characters encodeURIComponent leaves but RFC 5987 does not allow. */
const rfc5987 = (value: string) => encodeURIComponent(value).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export class S3BlobStore implements BlobStore {
  readonly tmpDir: string;
  readonly keys: S3Keys;
  readonly parts: DownloadParts;
  private readonly client: S3Client;
  private readonly where: { location: ReturnType<typeof parseS3Location>; endpoint: string };
  /** sha256 → when the blob was last seen (monotonic ms) and its size, when that was learnt. */
  private readonly seen = new Map<string, { at: number; size: number | null }>();
  private readonly clock: Clock;
  private readonly monotonicMs: () => number;

  constructor(private readonly options: S3BlobStoreOptions) {
    const location = parseS3Location(options.location);
    this.keys = new S3Keys(location);
    this.tmpDir = dataLayout(options.dataDir).tmp;
    this.client = options.client ?? createS3Client(options);
    this.where = { location, endpoint: options.endpoint ?? `AWS ${options.region ?? 'in the default region'}` };
    this.clock = options.clock ?? systemClock;
    this.monotonicMs = options.monotonicMs ?? (() => performance.now());
    if (options.partSize !== undefined && options.partSize < 5 * 1024 * 1024) throw new Error('the S3 part size must be at least 5 MiB');
    this.parts = new S3DownloadParts(this.client, this.keys, (operation, run, expected) => this.call(operation, run, expected));
  }

  private get bucket(): string {
    return this.keys.location.bucket;
  }

  /** Runs one S3 round trip: timed for `observe`, its failure described in one line. */
  private async call<T>(operation: string, run: () => Promise<T>, expected: (err: unknown) => boolean = () => false): Promise<T> {
    const started = this.monotonicMs();
    try {
      const result = await run();
      this.options.observe?.(operation, this.monotonicMs() - started, true);
      return result;
    } catch (err) {
      this.options.observe?.(operation, this.monotonicMs() - started, expected(err));
      throw expected(err) ? err : describeS3Error(operation, this.where, err);
    }
  }

  private remember(sha256: string, size: number | null = null): void {
    if (this.seen.size >= SEEN_MAX) this.seen.clear();
    this.seen.set(sha256, { at: this.monotonicMs(), size: size ?? this.seen.get(sha256)?.size ?? null });
  }

  /** What is remembered of a blob seen lately; null when it was not (or too long ago). */
  private recall(sha256: string): { at: number; size: number | null } | null {
    const seen = this.seen.get(sha256);
    if (seen === undefined) return null;
    if (this.monotonicMs() - seen.at < SEEN_FOR_MS) return seen;
    this.seen.delete(sha256);
    return null;
  }

  async init(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true });
  }

  async purgeTmp(olderThanMs?: number): Promise<number> {
    const local = await purgeTmpDir(this.tmpDir, olderThanMs);
    // Other nodes' uploads are in flight in the bucket: only the old ones are abandoned, even at start-up.
    const before = olderThanMs ?? this.clock.now() - (this.options.abandonedAfterMs ?? 3_600_000);
    const remote = await this.call('purgeTmp', () => purgeAbandonedUploads(this.client, this.keys, before));
    return local + remote;
  }

  tmpPath(prefix = 'blob'): string {
    return freshTmpPath(this.tmpDir, prefix);
  }

  localPath(): null {
    return null;
  }

  private async head(sha256: string): Promise<{ size: number; modifiedAt: number } | null> {
    const key = this.keys.blob(sha256);
    try {
      const head = await this.call('head', () => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })), isNotFound);
      this.remember(sha256, head.ContentLength ?? null);
      const committedAt = Number(head.Metadata?.[COMMITTED_AT] ?? 0);
      return { size: head.ContentLength ?? 0, modifiedAt: Math.max(head.LastModified?.getTime() ?? 0, committedAt) };
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.seen.delete(sha256);
      return null;
    }
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.head(sha256)) !== null;
  }

  hasSync(sha256: string): boolean {
    this.keys.blob(sha256); // throws for anything but a sha256
    return this.recall(sha256) !== null;
  }

  async size(sha256: string): Promise<number | null> {
    const known = this.recall(sha256)?.size;
    if (known !== undefined && known !== null) return known;
    return (await this.head(sha256))?.size ?? null;
  }

  async modifiedAt(sha256: string): Promise<number | null> {
    return (await this.head(sha256))?.modifiedAt ?? null;
  }

  /**
   * Makes an existing blob count as new again: the object is copied onto itself with new metadata, S3's way
   * to give it a fresh LastModified; the time is also kept in the metadata for servers that do not move it.
   */
  private async touch(sha256: string): Promise<void> {
    const key = this.keys.blob(sha256);
    await this.call('touch', () =>
      this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: key,
          CopySource: `${this.bucket}/${key}`.split('/').map(encodeURIComponent).join('/'),
          MetadataDirective: 'REPLACE',
          Metadata: { [COMMITTED_AT]: String(this.clock.now()) },
          ContentType: 'application/octet-stream',
        }),
      ),
    );
  }

  private uploadTarget() {
    return { client: this.client, bucket: this.bucket, partSize: this.options.partSize ?? 8 * 1024 * 1024, queueSize: this.options.queueSize ?? 4 };
  }

  private tmpKey(sha256: string): string {
    return this.keys.tmp(`${sha256}-${randomBytes(8).toString('hex')}`);
  }

  async commit(tmpPath: string, sha256: string): Promise<void> {
    const key = this.keys.blob(sha256);
    const { size } = await stat(tmpPath);
    if (await this.has(sha256)) await this.touch(sha256);
    else await this.call('upload', () => uploadFile(this.uploadTarget(), tmpPath, key, this.tmpKey(sha256)));
    this.remember(sha256, size);
    await unlink(tmpPath).catch(() => {});
  }

  beginCommit(tmpPath: string, sha256: string): GrowingCommit | null {
    const key = this.keys.blob(sha256);
    // Known to be there already: `commit` only counts it as new again.
    if (this.hasSync(sha256)) return null;
    const target = this.uploadTarget();
    const upload = new GrowingUpload({ ...target, key, path: tmpPath }, () => uploadFile(target, tmpPath, key, this.tmpKey(sha256)));
    return {
      grew: (bytes) => upload.grew(bytes),
      finish: async (size) => {
        await this.call('upload', () => upload.finish(size));
        this.remember(sha256, size);
      },
      abandon: () => upload.abandon(),
    };
  }

  /** Writes the buffer to a temporary file and commits that, so that it too is visible only once whole on every server. */
  async writeBuffer(bytes: Buffer, sha256: string): Promise<void> {
    if (await this.has(sha256)) return this.touch(sha256);
    const tmp = this.tmpPath('buf');
    await writeFile(tmp, bytes);
    try {
      await this.commit(tmp, sha256);
    } finally {
      await unlink(tmp).catch(() => {});
    }
  }

  async read(sha256: string, range?: { start: number; end: number }): Promise<Readable> {
    const key = this.keys.blob(sha256);
    try {
      const answer = await this.call('get', () =>
        this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) })),
      );
      this.remember(sha256);
      return answer.Body as Readable;
    } catch (err) {
      if (isNotFound(err) || (err as { code?: string }).code === 'ENOENT') this.seen.delete(sha256);
      throw err;
    }
  }

  async directUrl(sha256: string, download: { filename: string; contentType: string }): Promise<string | null> {
    if (!this.options.redirect) return null;
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.keys.blob(sha256),
      ResponseContentDisposition: `attachment; filename="${download.filename.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${rfc5987(download.filename)}`,
      ResponseContentType: download.contentType,
    });
    return getSignedUrl(this.client, command, { expiresIn: this.options.presignedUrlSeconds ?? 300 });
  }

  async remove(sha256: string): Promise<void> {
    this.seen.delete(sha256);
    await this.call('delete', () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keys.blob(sha256) })));
  }

  async *list(): AsyncIterable<{ sha256: string; size: number }> {
    const pages = paginateListObjectsV2({ client: this.client, pageSize: this.options.listPageSize }, { Bucket: this.bucket, Prefix: this.keys.blobsPrefix });
    const iterator = pages[Symbol.asyncIterator]();
    for (;;) {
      const page = await this.call('list', () => iterator.next());
      if (page.done) return;
      for (const object of page.value.Contents ?? []) {
        const sha256 = this.keys.shaOf(object.Key ?? '');
        if (sha256) yield { sha256, size: object.Size ?? 0 };
      }
    }
  }

  async ping(): Promise<void> {
    await this.call('ping', () => this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.keys.blobsPrefix, MaxKeys: 1 })));
  }

  /** Closes the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}
