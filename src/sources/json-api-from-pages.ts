/**
 * For an upstream without a JSON API (or one that does not know the project): the JSON API document
 * built from the simple page, with the latest release's `info` from its core metadata, and the size and
 * sha256 of every file the page does not give but the cache holds. A document the inner source has is
 * passed on unchanged.
 */
import type { Clock } from '../base/clock.js';
import { type FileEntry, type ProjectPage, type ProjectReleases, type Sourced, sourced } from '../model/documents.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import { latestRelease } from '../model/release-choice.js';
import { releasesFromPageInSlices, withReleaseMetadata } from '../upstream/json-api-from-simple.js';
import { yieldToLoop } from '../upstream/text-chunks.js';
import type { PackageSource } from './package-source.js';
import type { StoredFacts } from '../download/cached-files.js';
import type { ReleaseMetadataLookup } from './core-metadata-file.js';
import { SourceDecorator } from './source-decorator.js';

/** What the cache knows of a project's files without asking the upstream or the blob store (cached-source.ts). */
export interface CachedFileFacts {
  storedFacts(name: ProjectName, filename: string): Promise<StoredFacts | null>;
  /** Changes whenever this node caches a file of the project. */
  recordMark(name: ProjectName): number;
}

/**
 * How long a build that lacks a size, digest or `info` is reused while this node caches no file of the
 * project: other nodes sharing the cached-file index may cache some, and this node is not told.
 */
export const RECHECK_INCOMPLETE_MS = 60_000;

/** Files looked up in the cached-file index between two turns of the event loop. */
const LOOKUPS_PER_SLICE = 2000;

interface Build {
  doc: Promise<ProjectReleases>;
  /** Every file's size and sha256 and the latest release's metadata known: nothing a later build could add. Null while building. */
  complete: boolean | null;
  /** The project's record mark when the build started. */
  mark: number;
  startedAt: number;
}

export class JsonApiFromPages extends SourceDecorator {
  /**
   * One build per page: the page object stays the same while it is cached, and renderers cache by
   * identity. An incomplete build is done again once a file of the project has been cached since (or
   * after RECHECK_INCOMPLETE_MS), so that file shows its size, digest and metadata.
   */
  private readonly built = new WeakMap<ProjectPage, Build>();

  constructor(
    inner: PackageSource,
    private readonly metadataOf: ReleaseMetadataLookup,
    private readonly facts: CachedFileFacts,
    private readonly clock: Clock,
  ) {
    super(inner);
  }

  /** A built document has the provenance of the page it is built from. */
  override async getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>> {
    const doc = await this.inner.getReleases(name, forVersion);
    if (doc.value) return doc;
    const page = await this.inner.getProject(name);
    return sourced(page.value && (await this.documentOf(name, page.value)), page.provenance);
  }

  private documentOf(name: ProjectName, page: ProjectPage): Promise<ProjectReleases> {
    const mark = this.facts.recordMark(name);
    const known = this.built.get(page);
    if (known && this.reusable(known, mark)) return known.doc;
    const done = this.build(page);
    const build: Build = { doc: done.then((result) => result.doc), complete: null, mark, startedAt: this.clock.now() };
    done.then(
      (result) => (build.complete = result.complete),
      () => {
        if (this.built.get(page) === build) this.built.delete(page);
      },
    );
    this.built.set(page, build);
    return build.doc;
  }

  private reusable(build: Build, mark: number): boolean {
    if (build.complete !== false) return true;
    return build.mark === mark && this.clock.now() - build.startedAt < RECHECK_INCOMPLETE_MS;
  }

  /** In slices with turns of the event loop between: a page may list 50,000 files, each its own release. */
  private async build(page: ProjectPage): Promise<{ doc: ProjectReleases; complete: boolean }> {
    const known = await this.withCachedFacts(page);
    const draft = await releasesFromPageInSlices(known);
    const latest = latestRelease(draft.releases.filter((r) => r.files.length > 0));
    const metadata = latest && (await this.metadataOf(page.name, latest));
    const allKnown = known.files.every((file) => file.size !== null && file.hashes.sha256);
    if (!metadata) return { doc: draft, complete: allKnown && !latest };
    await yieldToLoop();
    const doc = withReleaseMetadata(draft, latest.version, metadata);
    // A PEP 503 page names the project only in its URL; the metadata has the name as its author wrote it.
    const displayName = page.displayName === page.name && normalizeName(metadata.name) === page.name ? metadata.name : page.displayName;
    return { doc: { ...doc, displayName }, complete: allKnown };
  }

  /** The page with the size and sha256 of each file it lacks them for, where the cached-file index has the file. */
  private async withCachedFacts(page: ProjectPage): Promise<ProjectPage> {
    const files: FileEntry[] = [];
    let changed = false;
    for (let start = 0; start < page.files.length; start += LOOKUPS_PER_SLICE) {
      if (start > 0) await yieldToLoop();
      // The lookups of one slice run together: one wait per slice, not one per file.
      const slice = page.files.slice(start, start + LOOKUPS_PER_SLICE);
      const facts = await Promise.all(
        slice.map((file) => (file.size !== null && file.hashes.sha256 ? null : this.facts.storedFacts(page.name, file.filename))),
      );
      slice.forEach((file, i) => {
        const stored = facts[i] ?? null;
        files.push(stored ? { ...file, size: stored.size, hashes: { ...file.hashes, sha256: stored.sha256 } } : file);
        changed ||= stored !== null;
      });
    }
    return changed ? { ...page, files } : page;
  }
}
