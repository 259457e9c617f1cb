/**
 * Publishes a validated upload: permission and new-name rules, duplicate policy, metadata extraction,
 * blobs committed durably, then one LMDB transaction for file, release, serial and changelog.
 */
import { createHash } from 'node:crypto';
import type { Identity } from '../auth/authenticator.js';
import { mayWrite } from '../auth/authenticator.js';
import { badRequest, conflict, forbidden, LarderError } from '../errors.js';
import type { ProjectName } from '../index/names.js';
import { normalizeVersion } from '../index/versions.js';
import type { BlobStore } from '../store/blob-store.js';
import type { MetaStore } from '../store/meta-store.js';
import type { FileRecord } from '../store/records.js';
import { checkSdist, readWheelMetadata } from './dist-metadata.js';
import type { ValidatedUpload } from './types.js';

/** Answers whether a name exists on the upstream index (decision 8). The proxy fills it with the real upstream. */
export interface UpstreamNames {
  exists(name: ProjectName): Promise<boolean>;
  /** The upstream serial larder has seen for the name (0 if none), without asking the upstream. */
  knownSerial(name: ProjectName): number;
}

export type PublishOutcome = 'created' | 'identical';

const alreadyExists = (file: FileRecord | { filename: string; blake2b_256: string }) =>
  conflict(
    'file_exists',
    `File already exists ('${file.filename}', with blake2_256 hash '${file.blake2b_256}'). Upload it under a new version.`,
  );

const filenameReused = () =>
  badRequest(
    'filename_reused',
    'This filename was previously used by a file that has since been deleted. Use a different version.',
  );

export class Publisher {
  constructor(
    private readonly meta: MetaStore,
    private readonly blobs: BlobStore,
    private readonly upstreamNames: UpstreamNames | null,
    /** Names configured to merge with the upstream project: creating them privately is the point. */
    private readonly mergeAllowList: ReadonlySet<string> = new Set(),
  ) {}

  private async checkPermission(upload: ValidatedUpload, who: Identity): Promise<void> {
    const record = this.meta.getProject(upload.project);
    if (!mayWrite(who, upload.project, record)) {
      throw forbidden(
        'not_allowed',
        who.tokenProjects
          ? `The given token isn't allowed to upload to project '${record?.displayName ?? upload.name}'.`
          : `The user '${who.user}' isn't allowed to upload to project '${record?.displayName ?? upload.name}'.`,
      );
    }
    if (record || !this.upstreamNames || this.meta.isNameAllowed(upload.project) || this.mergeAllowList.has(upload.project)) return;
    if (await this.upstreamNames.exists(upload.project)) {
      throw conflict(
        'name_exists_upstream',
        `The name '${upload.name}' conflicts with an existing project on the upstream index. ` +
          `An administrator can allow it with 'larder project allow-name ${upload.project}' or POST /api/allowed-names.`,
      );
    }
  }

  async publish(upload: ValidatedUpload, who: Identity): Promise<PublishOutcome> {
    await this.checkPermission(upload, who);
    const { content } = upload;
    const existing = this.meta.getFile(upload.project, upload.filename);
    if (existing) {
      if (existing.sha256 === content.sha256) return 'identical';
      throw alreadyExists(existing);
    }

    let metadataSha256: string | null = null;
    if (upload.filetype === 'bdist_wheel') {
      const metadata = await readWheelMetadata(content.path, upload.filename);
      metadataSha256 = createHash('sha256').update(metadata).digest('hex');
      await this.blobs.writeBuffer(metadata, metadataSha256);
    } else {
      await checkSdist(content.path, upload.filename);
    }
    const signatureSha256 = upload.signature ? upload.signature.sha256 : null;
    if (upload.signature) await this.blobs.commit(upload.signature.path, upload.signature.sha256);
    await this.blobs.commit(content.path, content.sha256);

    // Releases are keyed by the normalized version (`1.0RC1` is release `1.0rc1`), as on PyPI.
    const version = normalizeVersion(upload.version);
    const result = this.meta.publishFile({
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
        uploadTime: new Date().toISOString(),
        requiresPython: upload.requiresPython,
        comment: upload.comment,
        metadataSha256,
        signatureSha256,
        uploader: who.user,
      },
    });
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
        throw new LarderError(500, 'internal', 'Unexpected publish result.');
    }
  }
}
