/**
 * The `overlay` source: private projects first; a private project hides the upstream project of the same
 * normalized name completely (dependency-confusion safe) unless its name is on the merge allow-list.
 * A merged project carries the private project's PEP 792 status when one is set, else the upstream's; a
 * quarantined private project is not merged at all (no upstream file is listed or served either).
 */
import {
  type FileBody,
  type FileVariant,
  type ProjectListBatch,
  type ProjectPage,
  type ProjectReleases,
  type ProjectStatus,
  type Sourced,
  sourced,
} from '../model/documents.js';
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

  async getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    const { value: own } = await this.privateSource.getProject(name);
    return this.overlaid(
      name,
      own,
      () => this.upstream!.getProject(name),
      (mine, theirs) => {
        const ownFilenames = new Set(mine.files.map((f) => f.filename));
        return {
          ...mine,
          origin: 'merged',
          ...mergedStatus(mine, theirs),
          serial: Math.max(mine.serial, theirs.serial),
          files: [...mine.files, ...theirs.files.filter((f) => !ownFilenames.has(f.filename))],
          versions: [...new Set([...mine.versions, ...theirs.versions])],
        };
      },
    );
  }

  async getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>> {
    const { value: own } = await this.privateSource.getReleases(name);
    const ask = (merging: boolean) => this.upstream!.getReleases(name, merging ? undefined : forVersion);
    return this.overlaid(name, own, ask, (mine, theirs) => {
      const ownVersions = new Set(mine.releases.map((r) => r.version));
      return {
        ...mine,
        ...mergedStatus(mine, theirs),
        serial: Math.max(mine.serial, theirs.serial),
        releases: [...mine.releases, ...theirs.releases.filter((r) => !ownVersions.has(r.version))],
        vulnerabilities: theirs.vulnerabilities,
      };
    });
  }

  /**
   * The private answer (no provenance), else the upstream's; for a name on the merge allow-list, the two
   * merged with the upstream's provenance (an upstream that fails leaves the private project as it is).
   */
  private async overlaid<T>(
    name: ProjectName,
    own: T | null,
    ask: (merging: boolean) => Promise<Sourced<T | null>>,
    merge: (own: T, theirs: T) => T,
  ): Promise<Sourced<T | null>> {
    if (!own) return this.upstream ? ask(false) : sourced(null);
    if (!this.merges(name) || isQuarantined(own)) return sourced(own);
    const answer = await ask(true).catch(() => null);
    return answer?.value ? sourced(merge(own, answer.value), answer.provenance) : sourced(own, answer?.provenance);
  }

  /** A quarantined private project refuses every file (private-source.ts), the upstream's of a merged name too. */
  async openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    if (await this.privateSource.has(name)) {
      const own = await this.privateSource.openFile(name, filename, variant);
      if (own.value || !this.merges(name)) return own;
    }
    return this.upstream ? this.upstream.openFile(name, filename, variant) : sourced(null);
  }
}

function isQuarantined(doc: unknown): boolean {
  return (doc as { status?: ProjectStatus }).status?.status === 'quarantined';
}

/** The private project's status when one is set, else the upstream's. */
function mergedStatus(mine: { status?: ProjectStatus }, theirs: { status?: ProjectStatus }): { status?: ProjectStatus } {
  const status = mine.status ?? theirs.status;
  return status ? { status } : {};
}
