import type { ProjectName } from '../model/names.js';
import type { FileBody, FileVariant, ProjectListBatch, ProjectPage, ProjectReleases, Sourced } from '../model/documents.js';

/**
 * Everything that answers "which projects exist, which files has P, give me file F".
 * Sources compose as decorators: overlay(private, cached(upstream)). Each answer comes with its provenance
 * (cache state, upstream), which a decorator passes on or sets; a null value is "not here", with the
 * provenance of that answer (a cached 404 is a hit).
 */
export interface PackageSource {
  /** All project names, in batches; streamed, since an upstream may list hundreds of thousands. */
  listProjects(): AsyncIterable<ProjectListBatch>;
  /**
   * A token that changes whenever `listProjects` may list something else (refreshing a stale list first);
   * the root page's ETag and its rendered copy are keyed by it.
   */
  listVersion(): Promise<string>;
  /** The highest serial across all projects of this source (root page header). */
  lastSerial(): Promise<number>;
  getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>>;
  /** The JSON-API view of a project; null when unknown. `forVersion`: `/pypi/<p>/<v>/json` will be rendered from it. */
  getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>>;
  openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>>;
}
