/**
 * The `overlay` source: private projects first; a private project hides the upstream project of the same
 * normalized name completely (dependency-confusion safe) unless its name is on the merge allow-list.
 */
import type { FileBody, FileVariant, ProjectListBatch, ProjectPage, ProjectReleases, SourceTrace } from '../model/documents.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import type { PackageSource } from './package-source.js';
import type { PrivateSource } from './private-source.js';

export interface OverlayOptions {
  /** Normalized names whose upstream files are merged into the private project. */
  mergeAllowList?: ReadonlySet<string>;
}

export class OverlaySource implements PackageSource {
  private readonly mergeAllowList: ReadonlySet<string>;

  constructor(
    private readonly privateSource: PrivateSource,
    private readonly upstream: PackageSource | null,
    options: OverlayOptions = {},
  ) {
    this.mergeAllowList = options.mergeAllowList ?? new Set();
  }

  async *listProjects(): AsyncIterable<ProjectListBatch> {
    const privateNames = new Set<string>();
    for await (const batch of this.privateSource.listProjects()) {
      for (const entry of batch) privateNames.add(entry.normalized ?? normalizeName(entry.name));
      yield batch;
    }
    if (!this.upstream) return;
    for await (const batch of this.upstream.listProjects()) {
      yield privateNames.size === 0 ? batch : batch.filter((e) => !privateNames.has(e.normalized ?? normalizeName(e.name)));
    }
  }

  async listVersion(): Promise<string> {
    const own = await this.privateSource.listVersion();
    return this.upstream ? `${own} ${await this.upstream.listVersion()}` : own;
  }

  async lastSerial(): Promise<number> {
    const own = await this.privateSource.lastSerial();
    const upstream = this.upstream ? await this.upstream.lastSerial().catch(() => 0) : 0;
    return Math.max(own, upstream);
  }

  private merges(name: ProjectName): boolean {
    return this.upstream !== null && this.mergeAllowList.has(name);
  }

  async getProject(name: ProjectName, trace?: SourceTrace): Promise<ProjectPage | null> {
    const own = await this.privateSource.getProject(name);
    if (!own) return this.upstream ? this.upstream.getProject(name, trace) : null;
    if (!this.merges(name)) return own;
    const theirs = await this.upstream!.getProject(name, trace).catch(() => null);
    if (!theirs) return own;
    const ownFilenames = new Set(own.files.map((f) => f.filename));
    return {
      ...own,
      origin: 'merged',
      serial: Math.max(own.serial, theirs.serial),
      files: [...own.files, ...theirs.files.filter((f) => !ownFilenames.has(f.filename))],
      versions: [...new Set([...own.versions, ...theirs.versions])],
    };
  }

  async getReleases(name: ProjectName, trace?: SourceTrace, forVersion?: string): Promise<ProjectReleases | null> {
    const own = await this.privateSource.getReleases(name);
    if (!own) return this.upstream ? this.upstream.getReleases(name, trace, forVersion) : null;
    if (!this.merges(name)) return own;
    const theirs = await this.upstream!.getReleases(name, trace).catch(() => null);
    if (!theirs) return own;
    const ownVersions = new Set(own.releases.map((r) => r.version));
    return {
      ...own,
      serial: Math.max(own.serial, theirs.serial),
      releases: [...own.releases, ...theirs.releases.filter((r) => !ownVersions.has(r.version))],
      vulnerabilities: theirs.vulnerabilities,
    };
  }

  async openFile(name: ProjectName, filename: string, variant: FileVariant, trace?: SourceTrace): Promise<FileBody | null> {
    if (this.privateSource.has(name)) {
      const own = await this.privateSource.openFile(name, filename, variant);
      if (own || !this.merges(name)) return own;
    }
    return this.upstream ? this.upstream.openFile(name, filename, variant, trace) : null;
  }
}
