/** The `private` package source: projects uploaded to this larder, from the index store's records and the blob store. */
import { LRUCache } from 'lru-cache';
import type { BlobStore } from '../store/blob-store.js';
import type { IndexStore } from '../store/index-store.js';
import type { FileRecord, ProjectRecord, ReleaseRecord } from '../store/records.js';
import { contentTypeFor, requestedName } from '../model/filenames.js';
import { storedBody } from '../download/stored-body.js';
import type {
  FileBody,
  FileEntry,
  FileVariant,
  ProjectListBatch,
  ProjectPage,
  ProjectReleases,
  Release,
  ReleaseFile,
  ReleaseMetadata,
  Sourced,
} from '../model/documents.js';
import { sourced } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import { groupBy } from '../model/page-files.js';
import type { PackageSource } from './package-source.js';

export class PrivateSource implements PackageSource {
  /** Built pages by project, reused while the project's serial is unchanged (renderers cache by page identity). */
  private readonly pages = new LRUCache<string, ProjectPage>({ max: 2000 });

  constructor(
    private readonly meta: IndexStore,
    private readonly blobs: BlobStore,
  ) {}

  async listVersion(): Promise<string> {
    return `private:${this.meta.lastSerial()}`;
  }

  has(name: ProjectName): boolean {
    return this.meta.getProject(name) !== undefined;
  }

  async *listProjects(): AsyncIterable<ProjectListBatch> {
    yield Array.from(this.meta.listProjects(), (p) => ({ name: p.displayName, serial: projectSerial(p), normalized: p.name }));
  }

  async lastSerial(): Promise<number> {
    return this.meta.lastSerial();
  }

  async getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    return sourced(this.page(name));
  }

  async getReleases(name: ProjectName): Promise<Sourced<ProjectReleases | null>> {
    return sourced(this.releases(name));
  }

  async openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    return sourced(await this.body(name, filename, variant));
  }

  private page(name: ProjectName): ProjectPage | null {
    const project = this.meta.getProject(name);
    if (!project) return null;
    const known = this.pages.get(name);
    if (known && known.serial === projectSerial(project)) return known;
    const releases = new Map(this.meta.getReleases(name).map((r) => [r.version, r]));
    const files = this.meta.getFiles(name).map((f) => toFileEntry(f, releases.get(f.version)));
    const page: ProjectPage = {
      name,
      displayName: project.displayName,
      serial: projectSerial(project),
      files,
      versions: [...releases.keys()],
      origin: 'private',
    };
    this.pages.set(name, page);
    return page;
  }

  private releases(name: ProjectName): ProjectReleases | null {
    const project = this.meta.getProject(name);
    if (!project) return null;
    const filesOf = groupBy(this.meta.getFiles(name), (f) => f.version);
    const releases: Release[] = this.meta.getReleases(name).map((r) => ({
      version: r.version,
      metadata: r.metadata as unknown as ReleaseMetadata,
      yanked: r.yanked,
      yankedReason: r.yankedReason,
      files: (filesOf.get(r.version) ?? []).map((f) => toReleaseFile(f, r)),
    }));
    return {
      name,
      displayName: project.displayName,
      serial: projectSerial(project),
      releases,
      ownership: {
        roles: [
          ...[...project.owners].sort().map((user) => ({ role: 'Owner' as const, user })),
          ...[...project.maintainers].sort().map((user) => ({ role: 'Maintainer' as const, user })),
        ],
        organization: null,
      },
    };
  }

  private async body(name: ProjectName, filename: string, variant: FileVariant): Promise<FileBody | null> {
    const file = this.meta.getFile(name, filename);
    if (!file) return null;
    const sha256 = variant === 'file' ? file.sha256 : variant === 'metadata' ? file.metadataSha256 : file.signatureSha256;
    if (!sha256) return null;
    const size = variant === 'file' ? file.size : await this.blobs.size(sha256);
    if (size === null) return null;
    const contentType = variant === 'file' ? contentTypeFor(filename) : variant === 'metadata' ? 'text/plain; charset=utf-8' : 'application/pgp-signature';
    return storedBody(this.blobs, sha256, size, { filename: requestedName(filename, variant), contentType });
  }
}

/** The serial clients see: larder's, on top of the upstream's when the project took over an upstream name. */
function projectSerial(project: ProjectRecord): number {
  return project.serial + (project.serialBase ?? 0);
}

function toFileEntry(f: FileRecord, release: ReleaseRecord | undefined): FileEntry {
  return {
    filename: f.filename,
    version: f.version,
    sourceUrl: `/packages/${f.project}/${encodeURIComponent(f.filename)}`,
    hashes: { sha256: f.sha256, md5: f.md5, blake2b_256: f.blake2b_256 },
    requiresPython: f.requiresPython,
    yanked: release?.yanked ?? false,
    yankedReason: release?.yankedReason ?? null,
    coreMetadata: f.metadataSha256 ? { sha256: f.metadataSha256 } : false,
    size: f.size,
    uploadTime: f.uploadTime,
    hasSig: f.signatureSha256 !== null,
  };
}

function toReleaseFile(f: FileRecord, release: ReleaseRecord): ReleaseFile {
  return { ...toFileEntry(f, release), packagetype: f.packagetype, pythonVersion: f.pyversion, comment: f.comment };
}
