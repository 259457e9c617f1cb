/**
 * The `overlay` source: private projects first; a private project hides the upstream project of the same
 * normalized name completely (dependency-confusion safe) unless its name is on the merge allow-list.
 */
import { type FileBody, type FileVariant, type ProjectListBatch, type ProjectPage, type ProjectReleases, type Sourced, sourced } from '../model/documents.js';
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

  /**
   * A private project's answer has no provenance; a merged one has the upstream's, when it answered
   * (an upstream that fails leaves the private project as it is).
   */
  async getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    const { value: own } = await this.privateSource.getProject(name);
    if (!own) return this.upstream ? this.upstream.getProject(name) : sourced(null);
    if (!this.merges(name)) return sourced(own);
    const answer = await this.upstream!.getProject(name).catch(() => null);
    const theirs = answer?.value;
    if (!theirs) return sourced(own, answer?.provenance);
    const ownFilenames = new Set(own.files.map((f) => f.filename));
    return sourced(
      {
        ...own,
        origin: 'merged',
        serial: Math.max(own.serial, theirs.serial),
        files: [...own.files, ...theirs.files.filter((f) => !ownFilenames.has(f.filename))],
        versions: [...new Set([...own.versions, ...theirs.versions])],
      },
      answer.provenance,
    );
  }

  async getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>> {
    const { value: own } = await this.privateSource.getReleases(name);
    if (!own) return this.upstream ? this.upstream.getReleases(name, forVersion) : sourced(null);
    if (!this.merges(name)) return sourced(own);
    const answer = await this.upstream!.getReleases(name).catch(() => null);
    const theirs = answer?.value;
    if (!theirs) return sourced(own, answer?.provenance);
    const ownVersions = new Set(own.releases.map((r) => r.version));
    return sourced(
      {
        ...own,
        serial: Math.max(own.serial, theirs.serial),
        releases: [...own.releases, ...theirs.releases.filter((r) => !ownVersions.has(r.version))],
        vulnerabilities: theirs.vulnerabilities,
      },
      answer.provenance,
    );
  }

  async openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    if (this.privateSource.has(name)) {
      const own = await this.privateSource.openFile(name, filename, variant);
      if (own.value || !this.merges(name)) return own;
    }
    return this.upstream ? this.upstream.openFile(name, filename, variant) : sourced(null);
  }
}
