/**
 * `/pypi/<p>/<v>/json` needs that release's own metadata, but a project's JSON API document (and one
 * built from the simple page) has it only for the latest release. This source fills it in for the
 * version asked for, from the first lookup that finds it (the upstream's per-version document, then the
 * `.metadata` file), once per document and version.
 */
import { type ProjectReleases, type Release, type ReleaseMetadata, type Sourced, sourced } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import { findRelease } from '../model/release-choice.js';
import { isPlaceholderMetadata } from '../upstream/parse-json-api.js';
import type { PackageSource } from './package-source.js';
import type { ReleaseMetadataLookup } from './core-metadata-file.js';
import { SourceDecorator } from './source-decorator.js';

export class ReleaseMetadataFiller extends SourceDecorator {
  private readonly perVersion = new WeakMap<ProjectReleases, Map<string, Promise<ProjectReleases>>>();

  constructor(
    inner: PackageSource,
    /** Asked in order; one that fails counts as one that found nothing. */
    private readonly lookups: readonly ReleaseMetadataLookup[],
  ) {
    super(inner);
  }

  override async getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>> {
    const doc = await this.inner.getReleases(name);
    return doc.value && forVersion !== undefined ? sourced(await this.withReleaseMetadata(doc.value, forVersion), doc.provenance) : doc;
  }

  /** The document with `version`'s entry carrying that release's own metadata, when it can be found. */
  private withReleaseMetadata(doc: ProjectReleases, version: string): Promise<ProjectReleases> {
    const release = findRelease(doc.releases, version);
    if (!release || !isPlaceholderMetadata(release.metadata)) return Promise.resolve(doc);
    let known = this.perVersion.get(doc);
    if (!known) {
      known = new Map();
      this.perVersion.set(doc, known);
    }
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
    for (const lookup of this.lookups) {
      const found = await lookup(name, release).catch(() => null);
      if (found) return found;
    }
    return null;
  }
}
