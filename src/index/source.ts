import type { ProjectName } from './names.js';
import type { FileBody, FileVariant, ProjectListEntry, ProjectPage, ProjectReleases } from './model.js';

/**
 * Everything that answers "which projects exist, which files has P, give me file F".
 * Sources compose as decorators: overlay(private, cached(upstream)).
 */
export interface IndexSource {
  /** All project names; streamed, since an upstream may list hundreds of thousands. */
  listProjects(): AsyncIterable<ProjectListEntry>;
  /** The highest serial across all projects of this source (root page header). */
  lastSerial(): Promise<number>;
  getProject(name: ProjectName): Promise<ProjectPage | null>;
  /** The JSON-API view of a project; null when unknown. */
  getReleases(name: ProjectName): Promise<ProjectReleases | null>;
  openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<FileBody | null>;
}
