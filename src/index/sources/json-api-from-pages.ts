/**
 * For an upstream without a JSON API (or one that does not know the project): the JSON API document
 * built from the simple page, with the latest release's `info` from its core metadata, and the size and
 * sha256 of every file the page does not give but the cache holds. A document the inner source has is
 * passed on unchanged.
 */
import type { ProjectPage, ProjectReleases, SourceTrace } from '../../model/documents.js';
import { normalizeName, type ProjectName } from '../../model/names.js';
import { latestRelease } from '../../model/release-choice.js';
import { releasesFromPage } from '../../upstream/json-api-from-simple.js';
import type { IndexSource } from '../source.js';
import type { ReleaseMetadataLookup } from './core-metadata-file.js';
import { SourceDecorator } from './source-decorator.js';

interface Build {
  doc: Promise<ProjectReleases>;
  /** Every file's size and sha256 and the latest release's metadata known: nothing a later build could add. Null while building. */
  complete: boolean | null;
}

export class JsonApiFromPages extends SourceDecorator {
  /**
   * One build per page while it is complete: the page object stays the same while it is cached, and
   * renderers cache by identity. An incomplete build is done again at the next request, so a file that
   * has been cached since shows its size, digest and metadata.
   */
  private readonly built = new WeakMap<ProjectPage, Build>();

  constructor(
    inner: IndexSource,
    private readonly metadataOf: ReleaseMetadataLookup,
  ) {
    super(inner);
  }

  override async getReleases(name: ProjectName, trace?: SourceTrace, forVersion?: string): Promise<ProjectReleases | null> {
    const doc = await this.inner.getReleases(name, trace, forVersion);
    if (doc) return doc;
    const page = await this.inner.getProject(name, trace);
    if (!page) return null;
    let entry = this.built.get(page);
    if (!entry || entry.complete === false) {
      const done = this.build(page);
      const build: Build = { doc: done.then((result) => result.doc), complete: null };
      done.then(
        (result) => (build.complete = result.complete),
        () => (build.complete = false),
      );
      this.built.set(page, build);
      entry = build;
    }
    return entry.doc;
  }

  private async build(page: ProjectPage): Promise<{ doc: ProjectReleases; complete: boolean }> {
    const known = await this.withCachedFacts(page);
    const draft = releasesFromPage(known);
    const latest = latestRelease(draft.releases.filter((r) => r.files.length > 0));
    const metadata = latest && (await this.metadataOf(page.name, latest));
    const allKnown = known.files.every((file) => file.size !== null && file.hashes.sha256);
    if (!metadata) return { doc: draft, complete: allKnown && !latest };
    const doc = releasesFromPage(known, new Map([[latest.version, metadata]]));
    // A PEP 503 page names the project only in its URL; the metadata has the name as its author wrote it.
    const displayName = page.displayName === page.name && normalizeName(metadata.name) === page.name ? metadata.name : page.displayName;
    return { doc: { ...doc, displayName }, complete: allKnown };
  }

  /** The page with the size and sha256 of each file it lacks them for, where the verified file is cached. */
  private async withCachedFacts(page: ProjectPage): Promise<ProjectPage> {
    const files = await Promise.all(
      page.files.map(async (file) => {
        if (file.size !== null && file.hashes.sha256) return file;
        const body = await this.inner.openFile(page.name, file.filename, 'file').catch(() => null);
        if (body?.kind !== 'stored') return file;
        return { ...file, size: body.size, hashes: { ...file.hashes, sha256: body.sha256 } };
      }),
    );
    return files.some((file, i) => file !== page.files[i]) ? { ...page, files } : page;
  }
}
