/**
 * The `cached` source: wraps the upstream. Pages and JSON documents go through the document cache
 * (document-cache.ts), files through the file cache (cached-files.ts), the project list through the root
 * list (root-list.ts). It also builds JSON API documents for upstreams that have none.
 */
import { createReadStream } from 'node:fs';
import { text } from 'node:stream/consumers';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { LarderError } from '../../errors.js';
import type { BlobStore } from '../../store/blob-store.js';
import type { DiskSpace } from '../../store/disk-space.js';
import type { MetaStore, StoreKey } from '../../store/meta-store.js';
import { parseCoreMetadata, releasesFromPage } from '../../upstream/json-api-from-simple.js';
import { isPlaceholderMetadata } from '../../upstream/parse-json-api.js';
import type {
  FileBody,
  FileVariant,
  ProjectListBatch,
  ProjectPage,
  ProjectReleases,
  Release,
  ReleaseMetadata,
  SourceTrace,
} from '../../model/documents.js';
import type { ProjectName } from '../../model/names.js';
import type { IndexSource } from '../source.js';
import { findRelease, latestRelease } from '../../model/release-choice.js';
import type { CacheEvents } from './cache-events.js';
import { openCacheDbs, type CacheDbs } from './cache-records.js';
import { CachedFiles, MAX_METADATA_BYTES } from './cached-files.js';
import { DocumentCache, type DocKey } from './document-cache.js';
import { RootList } from './root-list.js';
import type { Fetched, UpstreamSource, Validators } from './upstream-source.js';

export type { CacheEvents } from './cache-events.js';

export interface CachedSourceOptions {
  pageTtl: number;
  rootTtl: number;
  notFoundTtl: number;
  /** How long a request for a stale page waits for the upstream before the stale copy is served, ms. */
  staleWait: number;
  offline: boolean;
  maxFileSize: number;
  cacheDir: string;
  clock: Clock;
  space: DiskSpace;
  dbs?: CacheDbs;
  /** Keeps cached files under a size bound, when one is configured. */
  budget?: { added(key: StoreKey, size: number): Promise<void> };
}

export class CachedSource implements IndexSource {
  private readonly documents: DocumentCache;
  private readonly files: CachedFiles;
  private readonly built = new WeakMap<ProjectPage, Promise<ProjectReleases>>();
  private readonly perVersion = new WeakMap<ProjectReleases, Map<string, Promise<ProjectReleases>>>();
  private readonly root: RootList;
  private readonly docs: CacheDbs['docs'];

  constructor(
    private readonly upstream: UpstreamSource,
    meta: MetaStore,
    blobs: BlobStore,
    private readonly options: CachedSourceOptions,
    private readonly logger: Logger,
    events: CacheEvents = {},
  ) {
    const { docs, files } = options.dbs ?? openCacheDbs(meta);
    this.docs = docs;
    const { clock, space, offline } = options;
    this.documents = new DocumentCache(
      docs,
      { ...options, failure: (what, err) => upstream.failure(what, err) },
      logger,
      events,
    );
    const fileOptions = { offline, clock, space, maxFileSize: options.maxFileSize, budget: options.budget };
    this.files = new CachedFiles(upstream, files, blobs, fileOptions, logger, events, (name) => this.getProject(name));
    this.root = new RootList(upstream, docs, {
      cacheDir: options.cacheDir,
      ttl: options.rootTtl,
      staleWait: options.staleWait,
      offline,
      clock,
      space,
      logger,
      cachedNames: () => this.cachedProjectNames(),
      cachedCount: () => docs.getCount({ start: ['page'], end: ['page\u0000'] }),
    });
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

  /** Does the upstream have this project? (the new-name rule of docs/uploads.md). Offline: as far as the cache knows. */
  async exists(name: ProjectName): Promise<boolean> {
    if (this.options.offline) return Boolean(this.documents.entry<ProjectPage>(['page', name])?.value);
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
    return this.documents.entry<ProjectPage>(['page', name])?.value?.serial ?? 0;
  }

  private cachedDocument<T>(
    key: DocKey,
    what: string,
    fetch: (validators: Validators | undefined) => Promise<Fetched<T>>,
    merge: (fresh: T, old: T | null) => T,
    trace: SourceTrace | undefined,
  ): Promise<T | null> {
    return this.documents.get({ key, what, fetch, merge, trace });
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
      if (body.kind === 'disk' && body.size > MAX_METADATA_BYTES) return null;
      const stream = body.kind === 'disk' ? createReadStream(body.path) : (await body.open()).stream;
      return parseCoreMetadata(await text(stream));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, project: name, version: release.version }, 'could not read core metadata for the JSON API document');
      return null;
    }
  }

  openFile(name: ProjectName, filename: string, variant: FileVariant, trace?: SourceTrace): Promise<FileBody | null> {
    return this.files.openFile(name, filename, variant, trace);
  }

  /** Resolves when every download under way has ended (used by a graceful stop). */
  drain(): Promise<void> {
    return this.files.drain();
  }

  /** Bytes and files of cached upstream content (files, `.metadata`, `.asc`) recorded in the store. */
  totals(): { bytes: number; files: number } {
    return this.files.totals();
  }
}
