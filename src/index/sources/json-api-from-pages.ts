/**
 * For an upstream without a JSON API (or one that does not know the project): the JSON API document
 * built from the simple page, with the latest release's `info` from its `.metadata` file. A document
 * the inner source has is passed on unchanged.
 */
import type { ProjectPage, ProjectReleases, SourceTrace } from '../../model/documents.js';
import type { ProjectName } from '../../model/names.js';
import { latestRelease } from '../../model/release-choice.js';
import { releasesFromPage } from '../../upstream/json-api-from-simple.js';
import type { IndexSource } from '../source.js';
import type { ReleaseMetadataLookup } from './core-metadata-file.js';
import { SourceDecorator } from './source-decorator.js';

export class JsonApiFromPages extends SourceDecorator {
  /** One build per page: the page object stays the same while it is cached, and renderers cache by identity. */
  private readonly built = new WeakMap<ProjectPage, Promise<ProjectReleases>>();

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
    let built = this.built.get(page);
    if (!built) {
      built = this.build(page);
      this.built.set(page, built);
    }
    return built;
  }

  private async build(page: ProjectPage): Promise<ProjectReleases> {
    const draft = releasesFromPage(page);
    const latest = latestRelease(draft.releases.filter((r) => r.files.length > 0));
    const metadata = latest && (await this.metadataOf(page.name, latest));
    return metadata ? releasesFromPage(page, new Map([[latest.version, metadata]])) : draft;
  }
}
