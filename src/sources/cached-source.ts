/**
 * The `cached` source: wraps the upstream. Pages and JSON documents go through the document cache
 * (document-cache.ts), files through the file cache (cached-files.ts), the project list through the root
 * list (root-list.ts). Only what the upstream itself sends: a JSON API document built from the simple page
 * (json-api-from-pages.ts) and a release's own metadata (release-metadata.ts) are decorators around it.
 */
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import type { BlobStore } from '../store/blob-store.js';
import type { DiskSpace } from '../store/disk-space.js';
import type { CachedFileId } from '../store/cached-file-index.js';
import type { Storage } from '../store/storage.js';
import type { CachedDocumentId } from '../store/upstream-document-store.js';
import {
  type FileBody,
  type FileVariant,
  type ProjectListBatch,
  type ProjectPage,
  type ProjectReleases,
  type ReleaseMetadata,
  type Sourced,
  sourced,
} from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import type { PackageSource } from './package-source.js';
import type { CacheEvents } from '../cache/cache-events.js';
import { CachedFiles, type StoredFacts } from '../download/cached-files.js';
import type { CrossNodeDownloads } from '../download/cross-node-downloads.js';
import { DocumentCache } from '../cache/document-cache.js';
import { RootList } from '../cache/root-list.js';
import type { Fetched, UpstreamFetcher, Validators } from '../upstream/upstream-fetcher.js';

export type { CacheEvents } from '../cache/cache-events.js';

export interface CachedSourceOptions {
  pageTtl: number;
  rootTtl: number;
  notFoundTtl: number;
  /** How long a request for a stale page waits for the upstream before the stale copy is served, ms. */
  staleWait: number;
  offline: boolean;
  maxFileSize: number;
  rootListFile: string;
  clock: Clock;
  space: DiskSpace;
  /** Keeps cached files under a size bound, when one is configured. */
  budget?: { added(id: CachedFileId): Promise<void> };
  /** Downloads shared with the other nodes of one blob store, when there are others. */
  crossNode?: CrossNodeDownloads;
}

/** A document fetched again keeps the higher serial already seen, so the serial larder reports never goes back. */
function keepSerial<T extends { serial: number }>(fresh: T, old: T | null): T {
  return old && old.serial > fresh.serial ? { ...fresh, serial: old.serial } : fresh;
}

/** The upstream's project pages through the document cache: what `getProject` answers and where the file cache finds a file's entry. */
export class UpstreamPages {
  constructor(
    private readonly documents: DocumentCache,
    private readonly upstream: UpstreamFetcher,
  ) {}

  get(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    return this.documents.get<ProjectPage>({
      id: { kind: 'page', project: name },
      what: `project ${name}`,
      fetch: (v) => this.upstream.fetchProject(name, v),
      merge: keepSerial,
    });
  }
}

export class CachedSource implements PackageSource {
  private readonly documents: DocumentCache;
  /** The file cache: also what the graceful stop waits for and what the storage metrics count. */
  readonly files: CachedFiles;
  private readonly root: RootList;
  private readonly pages: UpstreamPages;
  private readonly docs: Storage['documents'];

  constructor(
    private readonly upstream: UpstreamFetcher,
    stores: Pick<Storage, 'documents' | 'cachedFiles'>,
    blobs: BlobStore,
    options: CachedSourceOptions,
    logger: Logger,
    events: CacheEvents = {},
  ) {
    const { documents: docs, cachedFiles: files } = stores;
    this.docs = docs;
    const { clock, space, offline } = options;
    this.documents = new DocumentCache(docs, { ...options, failure: (what, err) => upstream.failure(what, err) }, logger, events);
    const fileOptions = { offline, clock, space, maxFileSize: options.maxFileSize, budget: options.budget, crossNode: options.crossNode };
    this.pages = new UpstreamPages(this.documents, upstream);
    this.files = new CachedFiles(upstream, files, blobs, fileOptions, logger, events, this.pages);
    this.root = new RootList(upstream, docs, {
      rootListFile: options.rootListFile,
      ttl: options.rootTtl,
      offline,
      clock,
      space,
      logger,
      cachedNames: () => this.cachedProjectNames(),
      cachedCount: () => docs.pageCount(),
    });
  }

  private *cachedProjectNames(): Iterable<string> {
    for (const { entry } of this.docs.pages()) {
      const page = entry.value as ProjectPage | null;
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

  /** Resolves once the pages and documents being written in the background are written. */
  settled(): Promise<void> {
    return this.documents.settled();
  }

  /** The cached page, without asking the upstream; null when none is cached or the upstream said 404. */
  cachedPage(name: ProjectName): ProjectPage | null {
    return this.documents.entry<ProjectPage>({ kind: 'page', project: name })?.value ?? null;
  }

  private cachedDocument<T>(
    id: CachedDocumentId,
    what: string,
    fetch: (validators: Validators | undefined) => Promise<Fetched<T>>,
    merge: (fresh: T, old: T | null) => T,
  ): Promise<Sourced<T | null>> {
    return this.documents.get({ id, what, fetch, merge });
  }

  getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    return this.pages.get(name);
  }

  /** The upstream's JSON API document; null when the upstream has no JSON API or does not know the project. */
  async getReleases(name: ProjectName): Promise<Sourced<ProjectReleases | null>> {
    if (!this.upstream.jsonApiUrl) return sourced(null);
    return this.cachedDocument<ProjectReleases>(
      { kind: 'releases', project: name },
      `the JSON API document of ${name}`,
      (v) => this.upstream.fetchReleases(name, v),
      keepSerial,
    );
  }

  /** The metadata of the upstream's `/pypi/<p>/<v>/json`; null when the upstream has no JSON API or no such release. */
  async getReleaseMetadata(name: ProjectName, version: string): Promise<ReleaseMetadata | null> {
    if (!this.upstream.jsonApiUrl) return null;
    const answer = await this.cachedDocument<ReleaseMetadata>(
      { kind: 'release', project: name, version },
      `the JSON API document of ${name} ${version}`,
      async (v) => {
        const fetched = await this.upstream.fetchRelease(name, version, v);
        return fetched.status === 'ok' ? { ...fetched, value: fetched.value.release.metadata } : fetched;
      },
      (fresh) => fresh,
    );
    return answer.value;
  }

  openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    return this.files.openFile(name, filename, variant);
  }

  /** The verified size and sha256 of a cached file, from the cached-file index alone. */
  storedFacts(name: ProjectName, filename: string): Promise<StoredFacts | null> {
    return this.files.storedFacts(name, filename);
  }

  /** Changes whenever this node caches a file of the project. */
  recordMark(name: ProjectName): number {
    return this.files.recordMark(name);
  }
}
