/**
 * The closure's view of the index, read through the cached source: project pages, and a file's
 * `Requires-Dist` from its `.metadata` (PEP 658) or, failing that, from the METADATA inside the wheel.
 * A sync fetches what it reads into the cache (the wheel too: the set needs it anyway); a dry run keeps
 * nothing and reads what is not cached from the upstream (uncached-metadata.ts). Every byte received is
 * counted, and told to the progress display.
 */
import { text } from 'node:stream/consumers';
import type { FileBody, FileEntry, ProjectPage } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import type { CachedSource } from '../sources/cached-source.js';
import { mirrorFileKey } from '../store/mirror-set-store.js';
import { parseCoreMetadata } from '../upstream/core-metadata.js';
import { readWheelMetadata } from '../archive/dist-metadata.js';
import type { MirrorIndex } from './closure.js';
import type { FetchProgress } from './fetch.js';
import type { UncachedMetadata } from './uncached-metadata.js';

type StreamBody = Extract<FileBody, { kind: 'stream' }>;

/** How what is not cached yet is read: fetched into the cache (a sync), or read without keeping it (a dry run). */
export type MetadataAccess = { kind: 'cache'; settle: () => Promise<void> } | { kind: 'uncached'; reader: UncachedMetadata };

/** What the closure fetched on its way. */
export interface ResolutionReads {
  /** Files downloaded whole into the cache (`.metadata` files and wheels), by mirrorFileKey. */
  cached: Set<string>;
  /** `.metadata` files read from the upstream and not kept. */
  metadataRead: number;
  /** Wheels whose METADATA was read by range requests, or from a temporary download since removed. */
  wheelsByRanges: number;
  wheelsDownloaded: number;
  /** Every byte received. */
  bytes: number;
}

const requiresDist = (metadata: string): string[] => parseCoreMetadata(metadata).requires_dist ?? [];

export class SourceIndex implements MirrorIndex {
  readonly reads: ResolutionReads = { cached: new Set(), metadataRead: 0, wheelsByRanges: 0, wheelsDownloaded: 0, bytes: 0 };
  private readonly pages = new Map<ProjectName, Promise<ProjectPage | null>>();
  private readonly deps = new Map<string, Promise<string[] | null>>();
  private readonly received = (n: number): void => {
    this.reads.bytes += n;
    this.options.progress?.add(0, n);
  };

  constructor(
    private readonly source: Pick<CachedSource, 'getProject' | 'openFile'>,
    private readonly options: { access: MetadataAccess; progress?: FetchProgress },
  ) {}

  page(name: ProjectName): Promise<ProjectPage | null> {
    let page = this.pages.get(name);
    if (!page) {
      page = this.source.getProject(name).then((answer) => answer.value);
      this.pages.set(name, page);
    }
    return page;
  }

  requiresDist(name: ProjectName, file: FileEntry): Promise<string[] | null> {
    const key = `${name}/${file.filename}`;
    let deps = this.deps.get(key);
    if (!deps) {
      deps = this.read(name, file);
      this.deps.set(key, deps);
    }
    return deps;
  }

  private async read(name: ProjectName, file: FileEntry): Promise<string[] | null> {
    const { access } = this.options;
    if (file.coreMetadata !== false) {
      const { value: body } = await this.source.openFile(name, file.filename, 'metadata');
      if (body?.kind === 'stored') return requiresDist(await text(await body.read()));
      if (body && access.kind === 'uncached') {
        const metadata = await access.reader.coreMetadata(file, this.received);
        this.reads.metadataRead += 1;
        this.options.progress?.add(1, 0);
        return requiresDist(metadata.toString('utf8'));
      }
      if (body) return requiresDist((await this.download(name, file.filename, 'metadata', body)).toString('utf8'));
    }
    if (!file.filename.endsWith('.whl')) return null;
    let { value: body } = await this.source.openFile(name, file.filename, 'file');
    if (body?.kind === 'stream' && access.kind === 'uncached') {
      const { metadata, read } = await access.reader.wheelMetadata(file, this.received);
      if (read === 'ranges') this.reads.wheelsByRanges += 1;
      else this.reads.wheelsDownloaded += 1;
      this.options.progress?.add(1, 0);
      return requiresDist(metadata.toString('utf8'));
    }
    if (body?.kind === 'stream' && access.kind === 'cache') {
      await this.download(name, file.filename, 'file', body, false);
      await access.settle();
      ({ value: body } = await this.source.openFile(name, file.filename, 'file'));
    }
    if (body?.kind !== 'stored') return null;
    return requiresDist((await readWheelMetadata(body.path ?? body, file.filename)).toString('utf8'));
  }

  /** Fetches a file into the cache, counting its bytes; returns them when `keep`. */
  private async download(name: ProjectName, filename: string, variant: 'file' | 'metadata', body: StreamBody, keep = true): Promise<Buffer> {
    const { stream } = await body.open();
    const parts: Buffer[] = [];
    for await (const chunk of stream) {
      this.received((chunk as Buffer).length);
      if (keep) parts.push(chunk as Buffer);
    }
    this.reads.cached.add(mirrorFileKey(name, filename, variant));
    this.options.progress?.add(1, 0);
    return Buffer.concat(parts);
  }
}
