/**
 * An in-memory `PackageSource` for decorator tests: the test sets pages, JSON API documents and file bodies,
 * and what the cached-file index holds (`stored`, `cache()`); every call is recorded.
 */
import { emptyMetadata } from '../../src/upstream/parse-json-api.js';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { FileBody, FileVariant, ProjectListBatch, ProjectPage, ProjectReleases, ReleaseMetadata, Sourced } from '../../src/model/documents.js';
import { sourced } from '../../src/model/documents.js';
import type { ProjectName } from '../../src/model/names.js';
import type { PackageSource } from '../../src/sources/package-source.js';
import type { StoredFacts } from '../../src/download/cached-files.js';

export class FakeSource implements PackageSource {
  readonly pages = new Map<string, ProjectPage>();
  readonly documents = new Map<string, ProjectReleases>();
  /** File bodies by `fileKey(filename, variant)`: text is served as a stream, `Error` makes `open()` reject. */
  readonly bodies = new Map<string, string | Error>();
  readonly calls: string[] = [];
  /** When set, `getProject` and `getReleases` reject with it. */
  failure: Error | null = null;
  /** The cached-file index: size and sha256 by filename. */
  readonly stored = new Map<string, StoredFacts>();
  private marks = 0;
  /** Index lookups of `storedFacts`, counted. */
  storedLookups = 0;

  /** Records a cached file, as the cache does once it has verified a download. */
  cache(filename: string, facts: StoredFacts): void {
    this.stored.set(filename, facts);
    this.marks++;
  }

  async storedFacts(_name: ProjectName, filename: string): Promise<StoredFacts | null> {
    this.storedLookups++;
    return this.stored.get(filename) ?? null;
  }

  recordMark(): number {
    return this.marks;
  }

  async *listProjects(): AsyncIterable<ProjectListBatch> {
    yield [...this.pages.values()].map((p) => ({ name: p.displayName, serial: p.serial }));
  }

  async listVersion(): Promise<string> {
    return 'fake';
  }

  async lastSerial(): Promise<number> {
    return Math.max(0, ...[...this.pages.values()].map((p) => p.serial));
  }

  /** Every answer is a cache hit. */
  async getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    this.calls.push(`getProject ${name}`);
    if (this.failure) throw this.failure;
    return sourced(this.pages.get(name) ?? null, { cache: 'hit' });
  }

  async getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>> {
    this.calls.push(forVersion === undefined ? `getReleases ${name}` : `getReleases ${name} ${forVersion}`);
    if (this.failure) throw this.failure;
    return sourced(this.documents.get(name) ?? null, { cache: 'hit' });
  }

  async openFile(_name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    this.calls.push(`openFile ${filename} ${variant}`);
    const body = this.bodies.get(fileKey(filename, variant));
    if (body === undefined) return sourced(null, { cache: 'hit' });
    return sourced<FileBody>(
      {
        kind: 'stream',
        size: null,
        etag: null,
        contentType: 'text/plain; charset=utf-8',
        open: async () => {
          if (body instanceof Error) throw body;
          return { stream: Readable.from([Buffer.from(body)]), size: body.length };
        },
      },
      { cache: 'hit' },
    );
  }
}

export const fileKey = (filename: string, variant: FileVariant) => `${filename} ${variant}`;

/** A `.metadata` file's text. */
export function coreMetadataText(name: string, version: string, summary: string): string {
  return `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\nSummary: ${summary}\n\nThe description of ${name} ${version}.\n`;
}

/** Metadata as a JSON API document carries it (not a placeholder). */
export function releaseMetadata(name: string, version: string, summary: string): ReleaseMetadata {
  return { ...emptyMetadata(name, version), summary, description: `The description of ${name} ${version}.` };
}

/** A logger that keeps the messages of its warnings. */
export function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = { warn: (_fields: object, message: string) => warnings.push(message) } as unknown as Logger;
  return { logger, warnings };
}
