import type { ProjectName } from '../model/names.js';
import type { FileBody, FileVariant, ProjectListBatch, ProjectPage, ProjectReleases, SourceTrace } from '../model/documents.js';

/**
 * Everything that answers "which projects exist, which files has P, give me file F".
 * Sources compose as decorators: overlay(private, cached(upstream)).
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
  getProject(name: ProjectName, trace?: SourceTrace): Promise<ProjectPage | null>;
  /** The JSON-API view of a project; null when unknown. */
  getReleases(name: ProjectName, trace?: SourceTrace, forVersion?: string): Promise<ProjectReleases | null>;
  openFile(name: ProjectName, filename: string, variant: FileVariant, trace?: SourceTrace): Promise<FileBody | null>;
}
