/**
 * Publishes a validated upload. Every refusal (permission and new-name rules, the duplicate policy, a file
 * name once deleted, an unsound archive, METADATA that contradicts the filename) is decided before any
 * blob is committed, with publishes of one project serialized; then the blobs are committed durably and
 * one index-store transaction (LMDB or PostgreSQL) writes file, release, serial and changelog. Should that
 * transaction still refuse (another process or node got there first), the blobs this upload added and
 * nothing references are removed.
 */
import type { Clock } from '../base/clock.js';
import { BackendUnavailable } from '../store/backend-unavailable.js';
import { createHash } from 'node:crypto';
import type { Identity } from '../auth/authenticator.js';
import { mayWrite } from '../auth/authenticator.js';
import { badRequest, conflict, forbidden, LarderError } from '../base/errors.js';
import type { ProjectName } from '../model/names.js';
import { normalizeVersion } from '../model/versions.js';
import type { IndexStore, PublishInput, PublishResult } from '../store/index-store.js';
import type { FileRecord, ProjectRecord } from '../store/records.js';
import { isSameFile } from '../store/same-file.js';
import type { Storage } from '../store/storage.js';
import { readWheelMetadata } from '../archive/dist-metadata.js';
import { checkSdist } from './sdist-check.js';
import { KeyedLock } from './keyed-lock.js';
import type { ValidatedUpload } from './types.js';
import { UploadBlobs } from './upload-blobs.js';
import { checkWheelIdentity } from './wheel-identity.js';

/** Answers whether a name exists on the upstream index (docs/uploads.md, "Private names and the upstream"). The proxy fills it with the real upstream. */
export interface UpstreamNames {
  exists(name: ProjectName): Promise<boolean>;
  /** The upstream serial larder has seen for the name (0 if none), without asking the upstream. */
  knownSerial(name: ProjectName): number;
}

export type PublishOutcome = 'created' | 'identical';

const alreadyExists = (file: FileRecord | { filename: string; blake2b_256: string }) =>
  conflict('file_exists', `File already exists ('${file.filename}', with blake2_256 hash '${file.blake2b_256}'). Upload it under a new version.`);

const filenameReused = () => badRequest('filename_reused', 'This filename was previously used by a file that has since been deleted. Use a different version.');

/** PEP 792: an archived or quarantined project takes no uploads (pypi.org answers an archived one with 400). */
function closedProject(record: ProjectRecord): LarderError {
  const why = record.statusReason ? ` (${record.statusReason})` : '';
  const message = `Project '${record.displayName}' is ${record.status}${why} and takes no new uploads; an owner can set it active again.`;
  return record.status === 'quarantined' ? forbidden('project_quarantined', message) : badRequest('project_archived', message);
}

export class Publisher {
  /** Publishes of one project run one at a time, so that check-then-commit cannot race inside this process. */
  private readonly projectLock = new KeyedLock();

  private readonly meta: IndexStore;

  constructor(
    private readonly storage: Pick<Storage, 'index' | 'blobs' | 'cachedFiles'>,
    private readonly upstreamNames: UpstreamNames | null,
    /** Names configured to merge with the upstream project: creating them privately is the point. */
    private readonly mergeAllowList: ReadonlySet<string>,
    private readonly clock: Clock,
  ) {
    this.meta = storage.index;
  }

  private async checkPermission(upload: ValidatedUpload, who: Identity): Promise<void> {
    const record = await this.meta.getProject(upload.project);
    if (!mayWrite(who, upload.project, record)) {
      if (who.uploadOnly && !record && who.tokenProjects?.includes(upload.project)) {
        throw forbidden(
          'not_allowed',
          `A token minted by trusted publishing cannot create project '${upload.name}': upload its first release with an account or an API token.`,
        );
      }
      throw forbidden(
        'not_allowed',
        who.tokenProjects
          ? `The given token isn't allowed to upload to project '${record?.displayName ?? upload.name}'.`
          : `The user '${who.user}' isn't allowed to upload to project '${record?.displayName ?? upload.name}'.`,
      );
    }
    if (record?.status === 'archived' || record?.status === 'quarantined') throw closedProject(record);
    if (record || !this.upstreamNames || this.mergeAllowList.has(upload.project) || (await this.meta.isNameAllowed(upload.project))) return;
    if (await this.upstreamNames.exists(upload.project)) {
      throw conflict(
        'name_exists_upstream',
        `The name '${upload.name}' conflicts with an existing project on the upstream index. ` +
          `An administrator can allow it with 'larder project allow-name ${upload.project}' or POST /api/allowed-names.`,
      );
    }
  }

  async publish(upload: ValidatedUpload, who: Identity): Promise<PublishOutcome> {
    return this.projectLock.run(upload.project, () => this.publishNow(upload, who));
  }

  private async publishNow(upload: ValidatedUpload, who: Identity): Promise<PublishOutcome> {
    await this.checkPermission(upload, who);
    const { content } = upload;
    const existing = await this.meta.getFile(upload.project, upload.filename);
    if (existing) {
      if (isSameFile(existing, content)) return 'identical';
      throw alreadyExists(existing);
    }
    if (await this.meta.isFilenameDeleted(upload.project, upload.filename)) throw filenameReused();
    const metadata = await this.inspectArchive(upload);

    const committed = new UploadBlobs(this.storage.blobs, this.meta, this.storage.cachedFiles);
    let result: PublishResult;
    try {
      let metadataSha256: string | null = null;
      if (metadata) {
        metadataSha256 = createHash('sha256').update(metadata).digest('hex');
        await committed.writeBuffer(metadata, metadataSha256);
      }
      if (upload.signature) await committed.commit(upload.signature.path, upload.signature.sha256);
      await committed.commit(content.path, content.sha256);
      result = await this.meta.publishFile(this.publishInput(upload, who, metadataSha256));
    } catch (err) {
      // The database may have committed the record before the connection was lost: the blobs stay (gc collects them if not).
      if (!(err instanceof BackendUnavailable)) await committed.takeBack();
      throw err;
    }
    if (result.outcome !== 'created') await committed.takeBack();
    switch (result.outcome) {
      case 'created':
        return 'created';
      case 'identical':
        return 'identical';
      case 'conflict':
        throw alreadyExists(result.existing);
      case 'reused-filename':
        throw filenameReused();
      default:
        throw new LarderError('internal', 'Unexpected publish result.');
    }
  }

  /** A wheel's METADATA (checked against the filename), or null for a sound sdist; a 400 otherwise. */
  private async inspectArchive(upload: ValidatedUpload): Promise<Buffer | null> {
    if (upload.filetype !== 'bdist_wheel') {
      await checkSdist(upload.content.path, upload.filename);
      return null;
    }
    const metadata = await readWheelMetadata(upload.content.path, upload.filename, { strict: true });
    checkWheelIdentity(metadata, upload);
    return metadata;
  }

  private publishInput(upload: ValidatedUpload, who: Identity, metadataSha256: string | null): PublishInput {
    const { content } = upload;
    // Releases are keyed by the normalized version (`1.0RC1` is release `1.0rc1`), as on PyPI.
    const version = normalizeVersion(upload.version);
    return {
      project: { name: upload.project, displayName: upload.name, serialBase: this.upstreamNames?.knownSerial(upload.project) ?? 0 },
      release: { version, metadata: { ...upload.metadata, version } },
      user: who.user,
      file: {
        project: upload.project,
        version,
        filename: upload.filename,
        packagetype: upload.filetype,
        pyversion: upload.pyversion,
        size: content.size,
        sha256: content.sha256,
        md5: content.md5,
        blake2b_256: content.blake2b_256,
        uploadTime: new Date(this.clock.now()).toISOString(),
        requiresPython: upload.requiresPython,
        comment: upload.comment,
        metadataSha256,
        signatureSha256: upload.signature ? upload.signature.sha256 : null,
        uploader: who.user,
        ...(who.publisher ? { publisher: who.publisher } : {}),
      },
    };
  }
}
