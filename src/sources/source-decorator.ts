/**
 * The base of sources that change one answer of the source they wrap: every call goes to `inner` until
 * a subclass overrides it.
 */
import type { FileBody, FileVariant, ProjectListBatch, ProjectPage, ProjectReleases, Sourced } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import type { PackageSource } from './package-source.js';

export abstract class SourceDecorator implements PackageSource {
  constructor(protected readonly inner: PackageSource) {}

  listProjects(): AsyncIterable<ProjectListBatch> {
    return this.inner.listProjects();
  }

  listVersion(): Promise<string> {
    return this.inner.listVersion();
  }

  lastSerial(): Promise<number> {
    return this.inner.lastSerial();
  }

  getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    return this.inner.getProject(name);
  }

  getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>> {
    return this.inner.getReleases(name, forVersion);
  }

  openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    return this.inner.openFile(name, filename, variant);
  }
}
