/**
 * The `cached` source: wraps the upstream. Pages and JSON documents are kept in LMDB with their validators
 * and in memory; fresh ones are served without asking, stale ones are revalidated (If-None-Match /
 * If-Modified-Since), and on upstream failure the stale copy is served. Files are downloaded once, verified,
 * and served from the blob store from then on. Offline, the upstream is never asked.
 */
import { readFile } from 'node:fs/promises';
import type { Database } from 'lmdb';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { LarderError, notFound } from '../../errors.js';
import type { BlobStore } from '../../store/blob-store.js';
import type { MetaStore, StoreKey } from '../../store/meta-store.js';
import { UpstreamError } from '../../upstream/client.js';
import { parseCoreMetadata, releasesFromPage } from '../../upstream/json-api-from-simple.js';
import { isPlaceholderMetadata } from '../../upstream/parse-json-api.js';
import { contentTypeFor } from '../filenames.js';
import type {
  CacheState,
  FileBody,
  FileEntry,
  FileVariant,
  ProjectListBatch,
  ProjectPage,
  ProjectReleases,
  Release,
  ReleaseMetadata,
  SourceTrace,
} from '../model.js';
import type { ProjectName } from '../names.js';
import type { IndexSource } from '../source.js';
import { findRelease, latestRelease } from '../release-choice.js';
import { FileDownload, strongestHash, VerificationError } from './file-download.js';
import { openCacheDbs, type CacheDbs, type CachedFileRecord, type DocEntry } from './cache-records.js';
import { RootList } from './root-list.js';
import { upstreamFailure, type Fetched, type UpstreamSource, type Validators } from './upstream-source.js';

type Key = (string | number)[];
type Db<V> = Database<V, StoreKey>;

export interface CachedSourceOptions {
  pageTtl: number;
  rootTtl: number;
  notFoundTtl: number;
  offline: boolean;
  cacheDir: string;
  dbs?: CacheDbs;
  /** Keeps cached files under a size bound, when one is configured. */
  budget?: { added(key: StoreKey, size: number): Promise<void> };
}

/** Counts what the cache does; the metrics endpoint reads it. */
export interface CacheEvents {
  cacheResult?(kind: 'page' | 'file' | 'metadata', state: CacheState): void;
  upstreamFailure?(what: string, err: Error): void;
  hashMismatch?(filename: string): void;
  bytesFetched?(bytes: number): void;
}

const offlineNotCached = (what: string) =>
  new LarderError(404, 'offline_not_cached', `larder is offline and ${what} is not cached.`);

export class CachedSource implements IndexSource {
  private readonly docs: Db<DocEntry<unknown>>;
  private readonly files: Db<CachedFileRecord>;
  /** Decoded entries, so a hot page is neither decoded from LMDB nor rebuilt per request. */
  private readonly memory = new LRUCache<string, DocEntry<unknown>>({ max: 5000 });
  private readonly inflight = new Map<string, Promise<{ value: unknown; state: CacheState }>>();
  private readonly downloads = new Map<string, Promise<FileDownload>>();
  private readonly built = new WeakMap<ProjectPage, Promise<ProjectReleases>>();
  private readonly perVersion = new WeakMap<ProjectReleases, Map<string, Promise<ProjectReleases>>>();
  private readonly root: RootList;

  constructor(
    private readonly upstream: UpstreamSource,
    meta: MetaStore,
    private readonly blobs: BlobStore,
    private readonly options: CachedSourceOptions,
    private readonly logger: Logger,
    private readonly events: CacheEvents = {},
  ) {
    ({ docs: this.docs, files: this.files } = options.dbs ?? openCacheDbs(meta));
    this.root = new RootList(
      upstream,
      this.docs as Db<unknown>,
      options.cacheDir,
      options.rootTtl,
      options.offline,
      logger,
      () => this.cachedProjectNames(),
      () => this.docs.getCount({ start: ['page'], end: ['page\u0000'] }),
    );
  }

  private *cachedProjectNames(): Iterable<string> {
    for (const { value } of this.docs.getRange({ start: ['page'], end: ['page\u0000'] })) {
      const page = value.value as ProjectPage | null;
      if (page) yield page.displayName;
    }
  }

  async listVersion(): Promise<string> {
    return this.root.version();
  }

  listProjects(): AsyncIterable<ProjectListBatch> {
    return this.root.entries();
  }

  async lastSerial(): Promise<number> {
    return this.root.lastSerial();
  }

  /** Does the upstream have this project? (decision 8's new-name rule). Offline: as far as the cache knows. */
  async exists(name: ProjectName): Promise<boolean> {
    if (this.options.offline) return Boolean(this.entry<ProjectPage>(['page', name])?.value);
    try {
      return (await this.getProject(name)) !== null;
    } catch (err) {
      throw new LarderError(
        503,
        'upstream_check_failed',
        `larder could not ask the upstream index whether '${name}' exists (${(err as Error).message}); try again later, or have an administrator allow the name.`,
      );
    }
  }

  knownSerial(name: ProjectName): number {
    return this.entry<ProjectPage>(['page', name])?.value?.serial ?? 0;
  }

  private entry<T>(key: Key): DocEntry<T> | undefined {
    const id = key.join('\u0000');
    let entry = this.memory.get(id);
    if (!entry) {
      entry = this.docs.get(key);
      if (entry) this.memory.set(id, entry);
    }
    return entry as DocEntry<T> | undefined;
  }

  private store<T>(key: Key, entry: DocEntry<T>): void {
    this.memory.set(key.join('\u0000'), entry);
    void this.docs.put(key, entry);
  }

  private fresh(entry: DocEntry<unknown>, ttl: number): boolean {
    return Date.now() - entry.fetchedAt < (entry.value === null ? this.options.notFoundTtl : ttl);
  }

  /** The cache protocol shared by pages and JSON documents. */
  private async cachedDocument<T>(
    key: Key,
    what: string,
    fetch: (validators: Validators | undefined) => Promise<Fetched<T>>,
    merge: (fresh: T, old: T | null) => T,
    trace: SourceTrace | undefined,
  ): Promise<T | null> {
    const entry = this.entry<T>(key);
    const report = (state: CacheState) => {
      if (trace) trace.cache = state;
      this.events.cacheResult?.('page', state);
    };
    if (this.options.offline) {
      if (!entry) throw offlineNotCached(what);
      report('hit');
      return entry.value;
    }
    if (entry && this.fresh(entry, this.options.pageTtl)) {
      report('hit');
      return entry.value;
    }
    const id = key.join('\u0000');
    let pending = this.inflight.get(id) as Promise<{ value: T | null; state: CacheState }> | undefined;
    if (!pending) {
      pending = this.refresh(key, what, entry, fetch, merge).finally(() => this.inflight.delete(id));
      this.inflight.set(id, pending);
    }
    const { value, state } = await pending;
    report(state);
    return value;
  }

  private async refresh<T>(
    key: Key,
    what: string,
    entry: DocEntry<T> | undefined,
    fetch: (validators: Validators | undefined) => Promise<Fetched<T>>,
    merge: (fresh: T, old: T | null) => T,
  ): Promise<{ value: T | null; state: CacheState }> {
    try {
      const answer = await fetch(entry?.value ? entry.validators : undefined);
      const now = Date.now();
      if (answer.status === 'not-modified' && entry) {
        this.store(key, { ...entry, fetchedAt: now });
        return { value: entry.value, state: 'revalidated' };
      }
      if (answer.status === 'ok') {
        const value = merge(answer.value, entry?.value ?? null);
        this.store(key, { value, fetchedAt: now, validators: answer.validators });
        return { value, state: entry ? 'revalidated' : 'miss' };
      }
      this.store(key, { value: null, fetchedAt: now, validators: {} });
      return { value: null, state: entry ? 'revalidated' : 'miss' };
    } catch (err) {
      this.events.upstreamFailure?.(what, err as Error);
      if (entry) {
        this.logger.warn({ err: (err as Error).message, what }, 'upstream failed; serving the stale cached copy');
        return { value: entry.value, state: 'stale' };
      }
      this.logger.warn({ err: (err as Error).message, what }, 'upstream failed and nothing is cached');
      throw upstreamFailure(what, err);
    }
  }

  async getProject(name: ProjectName, trace?: SourceTrace): Promise<ProjectPage | null> {
    return this.cachedDocument<ProjectPage>(
      ['page', name],
      `project ${name}`,
      (v) => this.upstream.fetchProject(name, v),
      (page, old) => (old && old.serial > page.serial ? { ...page, serial: old.serial } : page),
      trace,
    );
  }

  async getReleases(name: ProjectName, trace?: SourceTrace, forVersion?: string): Promise<ProjectReleases | null> {
    const doc = await this.projectReleases(name, trace);
    return doc && forVersion !== undefined ? this.withReleaseMetadata(doc, forVersion) : doc;
  }

  private async projectReleases(name: ProjectName, trace?: SourceTrace): Promise<ProjectReleases | null> {
    if (this.upstream.jsonApiUrl) {
      const doc = await this.cachedDocument<ProjectReleases>(
        ['releases', name],
        `the JSON API document of ${name}`,
        (v) => this.upstream.fetchReleases(name, v),
        (fresh, old) => (old && old.serial > fresh.serial ? { ...fresh, serial: old.serial } : fresh),
        trace,
      );
      if (doc) return doc;
    }
    const page = await this.getProject(name, trace);
    if (!page) return null;
    let built = this.built.get(page);
    if (!built) {
      built = this.buildReleases(page);
      this.built.set(page, built);
    }
    return built;
  }

  /** For an upstream without a JSON API: releases from the simple page, `info` from the latest release's `.metadata`. */
  private async buildReleases(page: ProjectPage): Promise<ProjectReleases> {
    const draft = releasesFromPage(page);
    const latest = latestRelease(draft.releases.filter((r) => r.files.length > 0));
    const metadata = latest && (await this.coreMetadataOf(page.name, latest));
    return metadata ? releasesFromPage(page, new Map([[latest.version, metadata]])) : draft;
  }

  /**
   * A project document whose entry for `version` carries that release's own metadata: the JSON API
   * document (and one built from the simple page) only has it for the latest release.
   */
  private withReleaseMetadata(doc: ProjectReleases, version: string): Promise<ProjectReleases> {
    const release = findRelease(doc.releases, version);
    if (!release || !isPlaceholderMetadata(release.metadata)) return Promise.resolve(doc);
    let known = this.perVersion.get(doc);
    if (!known) this.perVersion.set(doc, (known = new Map()));
    let filled = known.get(release.version);
    if (!filled) {
      filled = this.releaseMetadata(doc.name, release).then((metadata) =>
        metadata ? { ...doc, releases: doc.releases.map((r) => (r === release ? { ...r, metadata } : r)) } : doc,
      );
      known.set(release.version, filled);
    }
    return filled;
  }

  private async releaseMetadata(name: ProjectName, release: Release): Promise<ReleaseMetadata | null> {
    if (this.upstream.jsonApiUrl) {
      const answer = await this.cachedDocument<ReleaseMetadata>(
        ['release', name, release.version],
        `the JSON API document of ${name} ${release.version}`,
        async (v) => {
          const fetched = await this.upstream.fetchRelease(name, release.version, v);
          return fetched.status === 'ok' ? { ...fetched, value: fetched.value.release.metadata } : fetched;
        },
        (fresh) => fresh,
        undefined,
      ).catch(() => null);
      if (answer) return answer;
    }
    return this.coreMetadataOf(name, release);
  }

  /** The release's metadata read from the `.metadata` file of one of its distributions, when one has it. */
  private async coreMetadataOf(name: ProjectName, release: Release): Promise<ReleaseMetadata | null> {
    const file = release.files.find((f) => f.coreMetadata !== false);
    if (!file) return null;
    try {
      const body = await this.openFile(name, file.filename, 'metadata');
      if (!body) return null;
      const path = body.kind === 'disk' ? body.path : (await this.completeDownload(name, file.filename, 'metadata')).path;
      return parseCoreMetadata(await readFile(path, 'utf8'));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, project: name, version: release.version }, 'could not read core metadata for the JSON API document');
      return null;
    }
  }

  private async completeDownload(name: ProjectName, filename: string, variant: FileVariant) {
    const download = await this.downloads.get(`${name}\u0000${filename}\u0000${variant}`);
    if (!download) throw new Error('download vanished');
    return download.finished;
  }

  async openFile(name: ProjectName, filename: string, variant: FileVariant, trace?: SourceTrace): Promise<FileBody | null> {
    const key: Key = [name, filename, variant];
    const kind = variant === 'metadata' ? 'metadata' : 'file';
    const contentType = variant === 'file' ? contentTypeFor(filename) : variant === 'metadata' ? 'text/plain; charset=utf-8' : 'application/pgp-signature';
    const record = this.files.get(key);
    if (record && this.blobs.hasSync(record.sha256)) {
      if (trace) trace.cache = 'hit';
      this.events.cacheResult?.(kind, 'hit');
      if (Date.now() - record.lastAccess > 60_000) void this.files.put(key, { ...record, lastAccess: Date.now() });
      return { kind: 'disk', path: this.blobs.pathFor(record.sha256), size: record.size, etag: `"${record.sha256}"`, contentType };
    }
    if (this.options.offline) throw offlineNotCached(`${variant === 'file' ? 'file' : `the ${variant} of`} ${filename}`);
    const page = await this.getProject(name);
    const file = page?.files.find((f) => f.filename === filename);
    if (!file) return null;
    const target = this.downloadTarget(file, variant);
    if (!target) return null;
    if (trace) trace.cache = 'miss';
    this.events.cacheResult?.(kind, 'miss');
    const id = key.join('\u0000');
    let pending = this.downloads.get(id);
    if (!pending) {
      pending = this.startDownload(key, filename, target);
      this.downloads.set(id, pending);
      pending.then(
        (d) => d.finished.then(() => this.downloads.delete(id), () => this.downloads.delete(id)),
        () => this.downloads.delete(id),
      );
    }
    const downloadStarted = pending;
    return {
      kind: 'stream',
      size: target.expected.size,
      etag: variant === 'file' && file.hashes.sha256 ? `"${file.hashes.sha256}"` : null,
      contentType,
      open: async () => {
        try {
          const download = await downloadStarted;
          await download.started();
          return await download.follow();
        } catch (err) {
          throw this.downloadError(filename, err);
        }
      },
    };
  }

  private downloadTarget(file: FileEntry, variant: FileVariant) {
    if (variant === 'file') return { url: file.sourceUrl, expected: { hash: strongestHash(file.hashes), size: file.size } };
    if (variant === 'metadata') {
      if (file.coreMetadata === false) return null;
      const hash = file.coreMetadata === true ? null : strongestHash(file.coreMetadata);
      return { url: `${file.sourceUrl}.metadata`, expected: { hash, size: null } };
    }
    return file.hasSig ? { url: `${file.sourceUrl}.asc`, expected: { hash: null, size: null } } : null;
  }

  private async startDownload(
    key: Key,
    filename: string,
    target: { url: string; expected: { hash: { name: string; hex: string } | null; size: number | null } },
  ): Promise<FileDownload> {
    const res = await this.upstream.download(target.url);
    if (res.status === 404 || res.status === 410) {
      await res.body.dump();
      throw notFound(`The upstream index has no file ${filename} (it answered ${res.status}).`);
    }
    if (res.status !== 200) {
      await res.body.dump();
      throw new UpstreamError(`answered ${res.status} for ${filename}`, 'status', res.status);
    }
    if (!target.expected.hash) this.logger.warn({ filename }, 'the upstream advertises no hash for this file; only its size is checked');
    const download = new FileDownload({
      body: res.body,
      expected: target.expected,
      blobs: this.blobs,
      onVerified: async ({ sha256, size }) => {
        this.events.bytesFetched?.(size);
        const now = Date.now();
        await this.files.put(key, { sha256, size, fetchedAt: now, lastAccess: now });
        await this.options.budget?.added(key, size);
      },
    });
    download.finished.catch((err: Error) => {
      if (err instanceof VerificationError) {
        this.events.hashMismatch?.(filename);
        this.logger.warn({ filename, url: target.url, err: err.message }, 'upstream file failed verification; nothing was kept');
      } else {
        this.events.upstreamFailure?.(filename, err);
        this.logger.warn({ filename, url: target.url, err: err.message }, 'upstream download failed; nothing was kept');
      }
    });
    return download;
  }

  /** Resolves when every download under way has ended (used by a graceful stop). */
  async drain(): Promise<void> {
    const pending = [...this.downloads.values()].map((d) => d.then((x) => x.finished).catch(() => undefined));
    await Promise.all(pending);
  }

  /** Bytes and files of cached upstream content (files, `.metadata`, `.asc`) recorded in the store. */
  totals(): { bytes: number; files: number } {
    let bytes = 0;
    let files = 0;
    for (const { value } of this.files.getRange()) {
      bytes += value.size;
      files += 1;
    }
    return { bytes, files };
  }

  private downloadError(filename: string, err: unknown): LarderError {
    if (err instanceof LarderError) return err;
    if (err instanceof VerificationError) {
      return new LarderError(502, 'upstream_hash_mismatch', `The upstream sent ${filename} with the wrong content (${err.message}); nothing was kept.`);
    }
    return upstreamFailure(filename, err);
  }
}
