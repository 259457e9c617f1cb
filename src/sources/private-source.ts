/** The `private` package source: projects uploaded to this larder, from the index store's records and the blob store. */
import { LRUCache } from 'lru-cache';
import type { BlobStore } from '../store/blob-store.js';
import type { IndexStore } from '../store/index-store.js';
import type { FileRecord, ProjectRecord, ReleaseRecord } from '../store/records.js';
import { forbidden } from '../base/errors.js';
import { contentTypeFor, requestedName } from '../model/filenames.js';
import { storedBody } from '../download/stored-body.js';
import type {
  FileBody,
  FileEntry,
  FileVariant,
  ProjectListBatch,
  ProjectListEntry,
  ProjectPage,
  ProjectReleases,
  ProjectStatus,
  Release,
  ReleaseFile,
  ReleaseMetadata,
  Sourced,
} from '../model/documents.js';
import { sourced } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import { groupBy } from '../model/page-files.js';
import type { PackageSource } from './package-source.js';

/** Projects per batch of the project list. */
const LIST_BATCH = 1000;

export class PrivateSource implements PackageSource {
  /** Built pages by project, reused while the project's serial is unchanged (renderers cache by page identity). */
  private readonly pages = new LRUCache<string, ProjectPage>({ max: 2000 });

  constructor(
    private readonly meta: IndexStore,
    private readonly blobs: BlobStore,
  ) {}

  async listVersion(): Promise<string> {
    return `private:${await this.meta.lastSerial()}`;
  }

  async has(name: ProjectName): Promise<boolean> {
    return (await this.meta.getProject(name)) !== undefined;
  }

  async *listProjects(): AsyncIterable<ProjectListBatch> {
    let batch: ProjectListEntry[] = [];
    for await (const p of this.meta.listProjects()) {
      batch.push({ name: p.displayName, serial: projectSerial(p), normalized: p.name });
      if (batch.length >= LIST_BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  async lastSerial(): Promise<number> {
    return this.meta.lastSerial();
  }

  async getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    return sourced(await this.page(name));
  }

  async getReleases(name: ProjectName): Promise<Sourced<ProjectReleases | null>> {
    return sourced(await this.releases(name));
  }

  async openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    return sourced(await this.body(name, filename, variant));
  }

  private async page(name: ProjectName): Promise<ProjectPage | null> {
    const project = await this.meta.getProject(name);
    if (!project) return null;
    const known = this.pages.get(name);
    if (known && known.serial === projectSerial(project)) return known;
    const quarantined = project.status === 'quarantined';
    const [releaseList, fileList] = quarantined ? [[], []] : await Promise.all([this.meta.getReleases(name), this.meta.getFiles(name)]);
    const releases = new Map(releaseList.map((r) => [r.version, r]));
    const files = fileList.map((f) => toFileEntry(f, releases.get(f.version)));
    const page: ProjectPage = {
      name,
      displayName: project.displayName,
      serial: projectSerial(project),
      files,
      versions: [...releases.keys()],
      ...statusField(project),
      origin: 'private',
    };
    this.pages.set(name, page);
    return page;
  }

  private async releases(name: ProjectName): Promise<ProjectReleases | null> {
    const project = await this.meta.getProject(name);
    if (!project) return null;
    const quarantined = project.status === 'quarantined';
    const [releaseList, fileList] = await Promise.all([this.meta.getReleases(name), quarantined ? [] : this.meta.getFiles(name)]);
    const filesOf = groupBy(fileList, (f) => f.version);
    const releases: Release[] = releaseList.map((r) => ({
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
      ...statusField(project),
    };
  }

  private async body(name: ProjectName, filename: string, variant: FileVariant): Promise<FileBody | null> {
    const project = await this.meta.getProject(name);
    if (project?.status === 'quarantined') throw quarantinedFiles(project);
    const file = await this.meta.getFile(name, filename);
    if (!file) return null;
    const sha256 = variant === 'file' ? file.sha256 : variant === 'metadata' ? file.metadataSha256 : file.signatureSha256;
    if (!sha256) return null;
    const size = variant === 'file' ? file.size : await this.blobs.size(sha256);
    if (size === null) return null;
    const contentType = variant === 'file' ? contentTypeFor(filename) : variant === 'metadata' ? 'text/plain; charset=utf-8' : 'application/pgp-signature';
    return storedBody(this.blobs, sha256, size, { filename: requestedName(filename, variant), contentType });
  }
}

/** The PEP 792 status a page carries; none when the project is active with no reason (renderers say `active`). */
function statusOf(project: ProjectRecord): ProjectStatus | undefined {
  if (!project.status && !project.statusReason) return undefined;
  return { status: project.status ?? 'active', ...(project.statusReason ? { reason: project.statusReason } : {}) };
}

function statusField(project: ProjectRecord): { status?: ProjectStatus } {
  const status = statusOf(project);
  return status ? { status } : {};
}

function quarantinedFiles(project: ProjectRecord): Error {
  const why = project.statusReason ? ` (${project.statusReason})` : '';
  return forbidden('project_quarantined', `Project ${project.displayName} is quarantined${why}: its files are not served.`);
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
