/**
 * The file half of the `cached` source: upstream files (and their `.metadata` / `.asc`) are downloaded
 * once, verified and kept in the blob store; later requests are served from there. Concurrent requests
 * for a file share one download. A file that cannot be kept (full disk) is still delivered.
 */
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import { formatBytes } from '../base/units.js';
import { LarderError, notFound } from '../base/errors.js';
import { PageFiles } from '../model/page-files.js';
import type { BlobStore } from '../store/blob-store.js';
import { type DiskSpace, isDiskFull } from '../store/disk-space.js';
import type { CachedFileId, CachedFileIndex } from '../store/cached-file-index.js';
import type { CachedFileRecord } from '../store/records.js';
import { UpstreamError } from '../upstream/client.js';
import { contentTypeFor, requestedName } from '../model/filenames.js';
import { type FileBody, type FileEntry, type FileVariant, type ProjectPage, type Sourced, sourced } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import type { CacheEvents } from '../cache/cache-events.js';
import { VerificationError } from './download-verifier.js';
import { type CachedFileTarget, cachedFileTarget, sha256Of } from './cached-file-target.js';
import { FileDownload } from './file-download.js';
import { HashWorker } from './hash-worker.js';
import { storedBody } from './stored-body.js';
import type { CrossNodeDownloads } from './cross-node-downloads.js';
import { declaredLength, type Handover } from './handover.js';
import { type Followed, SharedDownloads } from './shared-downloads.js';
import { FileRecordMarks } from '../cache/file-record-marks.js';
import { offlineNotCached } from '../cache/offline.js';
import type { UpstreamFetcher } from '../upstream/upstream-fetcher.js';

/** How often a cached file's last access is written (for the eviction order). */
const ACCESS_RESOLUTION_MS = 60_000;

export interface CachedFilesOptions {
  offline: boolean;
  maxFileSize: number;
  space: DiskSpace;
  clock: Clock;
  /** Keeps cached files under a size bound, when one is configured. */
  budget?: { added(id: CachedFileId): Promise<void> };
  /** Downloads shared with the other nodes of one blob store, when there are others. */
  crossNode?: CrossNodeDownloads;
}

/** What the cached-file index says of a file: its verified size and sha256. */
export interface StoredFacts {
  size: number;
  sha256: string;
}

export class CachedFiles {
  private readonly downloads: SharedDownloads;
  private readonly pageFiles = new PageFiles();
  private readonly marks = new FileRecordMarks();
  private readonly hashWorker = new HashWorker();

  constructor(
    private readonly upstream: UpstreamFetcher,
    private readonly files: CachedFileIndex,
    private readonly blobs: BlobStore,
    private readonly options: CachedFilesOptions,
    private readonly logger: Logger,
    private readonly events: CacheEvents,
    /** Where a file's entry is found: the project's page, as the cached source has it. */
    private readonly pages: { get(name: ProjectName): Promise<Sourced<ProjectPage | null>> },
  ) {
    this.downloads = new SharedDownloads(options.crossNode);
  }

  async openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    const id: CachedFileId = { project: name, filename, variant };
    const contentType = variant === 'file' ? contentTypeFor(filename) : variant === 'metadata' ? 'text/plain; charset=utf-8' : 'application/pgp-signature';
    const download = { filename: requestedName(filename, variant), contentType };
    const record = await this.files.get(id);
    if (record && (this.blobs.hasSync(record.sha256) || (await this.blobs.has(record.sha256)))) {
      this.touch(id, record);
      return sourced(storedBody(this.blobs, record.sha256, record.size, download), { cache: 'hit' });
    }
    if (this.options.offline) throw offlineNotCached(`${variant === 'file' ? 'file' : `the ${variant} of`} ${filename}`);
    const page = (await this.pages.get(name)).value;
    const file = page ? this.fileOf(page, filename) : undefined;
    const target = file && cachedFileTarget(file, variant, this.options.maxFileSize);
    if (!target) return sourced(null);
    const stored = await this.alreadyStored(id, target);
    if (stored) {
      return sourced(storedBody(this.blobs, stored.sha256, stored.size, download), { cache: 'hit' });
    }
    if (target.expected.size !== null && target.expected.size > target.maxBytes) {
      throw new LarderError(
        'upstream_too_large',
        `The upstream lists ${filename} at ${formatBytes(target.expected.size)}, more than LARDER_MAX_FILE_SIZE (${formatBytes(target.maxBytes)}); larder does not fetch it.`,
      );
    }
    const body: FileBody = {
      kind: 'stream',
      size: target.expected.size,
      etag: variant === 'file' && file.hashes.sha256 ? `"${file.hashes.sha256}"` : null,
      contentType,
      open: async () => {
        try {
          return await this.follow(id, target);
        } catch (err) {
          throw this.downloadError(filename, err);
        }
      },
    };
    return sourced(body, { cache: 'miss' });
  }

  /** The verified size and sha256 of a file this node has a record of; null when it has none. */
  async storedFacts(name: ProjectName, filename: string): Promise<StoredFacts | null> {
    const record = await this.files.get({ project: name, filename, variant: 'file' });
    return record ? { size: record.size, sha256: record.sha256 } : null;
  }

  /** Changes whenever this node records a file of the project (file-record-marks.ts). */
  recordMark(name: ProjectName): number {
    return this.marks.mark(name);
  }

  private fileOf(page: ProjectPage, filename: string): FileEntry | undefined {
    return this.pageFiles.find(page, filename);
  }

  private touch(id: CachedFileId, record: CachedFileRecord): void {
    const now = this.options.clock.now();
    if (now - record.lastAccess <= ACCESS_RESOLUTION_MS) return;
    // Recency only orders evictions: losing one such write costs nothing, so it is not waited for.
    this.files.touch(id, record, now).catch((err: Error) => this.events.storeFailed?.('file access time', err));
  }

  /**
   * The verified blob of the sha256 the upstream lists, when the store has it already (another node
   * downloaded the file, or a private upload holds the same bytes): recorded, so later requests are hits.
   * A store that fails to answer fails the request (503, as for a cached file) rather than sending it on to
   * the upstream, which would wait on the same store for every step after.
   */
  private async alreadyStored(id: CachedFileId, target: CachedFileTarget): Promise<CachedFileRecord | null> {
    const sha256 = sha256Of(target);
    if (!sha256 || !(await this.blobs.has(sha256))) return null;
    const size = target.expected.size ?? (await this.blobs.size(sha256));
    if (size === null) return null;
    const now = this.options.clock.now();
    const record = { sha256, size, fetchedAt: now, lastAccess: now };
    try {
      await this.files.put(id, record);
      this.marks.recorded(id.project);
      await this.options.budget?.added(id);
    } catch (err) {
      this.events.storeFailed?.(`record of ${id.filename}`, err as Error);
    }
    return record;
  }

  /**
   * Joins the download under way for this file when it can take another client, else starts one — unless
   * another node is downloading it: then the client follows that download (and this node takes it over if need be).
   */
  private follow(id: CachedFileId, target: CachedFileTarget): Promise<Followed> {
    return this.downloads.follow({
      key: `${id.project}\u0000${id.filename}\u0000${id.variant}`,
      sha256: sha256Of(target),
      size: target.expected.size,
      start: (handover) => this.start(id, target, handover),
    });
  }

  /** Asks the upstream for the file (from where the handover's parts end) and starts its download with the first client. */
  private async start(id: CachedFileId, target: CachedFileTarget, handover: Handover | null): Promise<FileDownload> {
    const { filename } = id;
    const abort = new AbortController();
    const res = await this.upstream.download(target.url, abort.signal, handover?.offset);
    if (res.status === 404 || res.status === 410) {
      await res.body.dump().catch(() => {});
      throw notFound(`The upstream index has no file ${filename} (it answered ${res.status}).`);
    }
    const answer = handover ? await handover.read(res) : res.status === 200 ? { body: res.body, contentLength: declaredLength(res) } : null;
    if (!answer) {
      await res.body.dump().catch(() => {});
      throw new UpstreamError(`answered ${res.status} for ${filename}`, 'status', res.status);
    }
    if (!target.expected.hash) this.logger.warn({ filename }, 'the upstream advertises no hash for this file; only its size is checked');
    const { body, contentLength } = answer;
    const space = this.options.space;
    const keep = await space.allows(target.expected.size ?? contentLength ?? 0);
    if (!keep) this.events.diskFull?.('file', filename, null);
    const download = await FileDownload.start({
      body,
      abort: () => abort.abort(),
      expected: target.expected,
      contentLength,
      maxBytes: target.maxBytes,
      blobs: this.blobs,
      hashWorker: this.hashWorker,
      keep,
      mayWrite: (bytes) => space.claim(bytes),
      onVerified: async ({ sha256, size }) => {
        this.events.bytesFetched?.(size);
        const now = this.options.clock.now();
        try {
          await this.files.put(id, { sha256, size, fetchedAt: now, lastAccess: now });
          this.marks.recorded(id.project);
        } catch (err) {
          // The blob stays an orphan (collected by gc); the client still gets the verified file.
          this.events.storeFailed?.(`record of ${filename}`, err as Error);
          return;
        }
        await this.options.budget?.added(id).catch((err: Error) => this.events.storeFailed?.('cache eviction', err));
      },
      onNotKept: (reason) => {
        if (!isDiskFull(reason)) return this.events.storeFailed?.(`file ${filename}`, reason);
        space.forget();
        this.events.diskFull?.('file', filename, reason);
      },
    });
    download.finished.catch((err: Error) => {
      if (err instanceof VerificationError) {
        this.events.hashMismatch?.(filename);
        this.logger.warn({ filename, url: target.url, err: err.message }, 'upstream file failed verification; nothing was kept');
      } else {
        this.logger.warn({ filename, url: target.url, err: err.message }, 'upstream download ended early; nothing was kept');
      }
    });
    return download;
  }

  /** Resolves when every download under way has ended (used by a graceful stop). */
  async drain(): Promise<void> {
    await this.downloads.drain();
    await this.hashWorker.close();
  }

  /** Bytes and files of cached upstream content (files, `.metadata`, `.asc`) recorded in the store. */
  totals(): Promise<{ bytes: number; files: number }> {
    return this.files.totals();
  }

  private downloadError(filename: string, err: unknown): LarderError {
    if (err instanceof LarderError) return err;
    if (err instanceof VerificationError) {
      return new LarderError('upstream_hash_mismatch', `The upstream sent ${filename} with the wrong content (${err.message}); nothing was kept.`);
    }
    return this.upstream.failure(filename, err);
  }
}
