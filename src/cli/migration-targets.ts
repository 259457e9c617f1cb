/**
 * Opens where `larder migrate` moves a data directory to: a database (`--to`) and a blob store (`--blobs`).
 * `file:` URLs name another local data directory (LMDB + files) instead.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './args.js';
import { FileBlobStore } from '../store/fs/file-blob-store.js';
import { openStorage } from '../store/local/open-storage.js';
import { openS3Blobs } from '../store/open-backends.js';
import { parseBlobStore } from '../config/backend-settings.js';
import type { BlobStore } from '../store/blob-store.js';
import type { IndexStore } from '../store/index-store.js';
import type { CachedFileIndex } from '../store/cached-file-index.js';
import type { MirrorSetStore } from '../store/mirror-set-store.js';
import type { PolicyStore } from '../store/policy-store.js';

export interface MigrationTargetOptions {
  /** `postgres://…` or `file:/other/data`; null = the records stay. */
  databaseUrl: string | null;
  /** The most connections opened to PostgreSQL in all (`LARDER_DATABASE_POOL`). */
  databasePool: number;
  /** `s3://bucket/prefix` or `file:/other/data`; null = the blobs stay. */
  blobStore: string | null;
  s3Endpoint: string | null;
  s3Region: string | null;
  /** How long one S3 request may take, its retries included (`LARDER_S3_DEADLINE`). */
  s3Deadline: number;
  /** The source data directory (a target may not be the same). */
  data: string;
}

export interface OpenedTargets {
  /** Null for a part that is not migrated. */
  index: IndexStore | null;
  policy: PolicyStore | null;
  blobs: BlobStore | null;
  /** Records of cached upstream files, when the target database shares them. */
  cachedFiles?: CachedFileIndex;
  /** Mirror sets, when the target database shares them (their files are spared by every node's eviction). */
  mirrorSets?: MirrorSetStore;
  close(): Promise<void>;
}

export type OpenMigrationTargets = (options: MigrationTargetOptions) => Promise<OpenedTargets>;

/** The directory of a `file:` URL, refused when it is the source's own. */
function localDir(url: string, data: string, flag: string): string {
  let dir: string;
  try {
    dir = resolve(fileURLToPath(new URL(url)));
  } catch {
    throw new UsageError(`${flag} ${url}: not a file:/absolute/path URL`);
  }
  if (dir === resolve(data)) throw new UsageError(`${flag} ${url} is the data directory being migrated`);
  return dir;
}

/** The blob store `--blobs` names. */
async function openBlobs(options: MigrationTargetOptions, url: string): Promise<BlobStore> {
  if (url.startsWith('s3://')) {
    parseBlobStore(url, '--blobs');
    const blobs = await openS3Blobs({
      blobStore: url,
      s3Endpoint: options.s3Endpoint,
      s3Region: options.s3Region,
      s3Deadline: options.s3Deadline,
      data: options.data,
      s3Redirect: false,
    });
    await blobs.init();
    return blobs;
  }
  if (!url.startsWith('file:')) throw new UsageError(`--blobs ${url}: expected s3://bucket/prefix`);
  return new FileBlobStore(localDir(url, options.data, '--blobs'));
}

export const openMigrationTargets: OpenMigrationTargets = async (options) => {
  const { databaseUrl, blobStore, data } = options;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl) && !databaseUrl.startsWith('file:')) {
    throw new UsageError(`--to ${databaseUrl}: expected postgres://user:password@host/database`);
  }
  const blobs = blobStore === null ? null : await openBlobs(options, blobStore);
  if (databaseUrl === null) return { index: null, policy: null, blobs, close: async () => {} };
  if (databaseUrl.startsWith('file:')) {
    const storage = openStorage(localDir(databaseUrl, data, '--to'));
    return { index: storage.index, policy: storage.policy, blobs, close: () => storage.close() };
  }
  const { openPostgres } = await import('../store/postgres/open-postgres.js');
  const database = await openPostgres(databaseUrl, { connections: options.databasePool });
  const { index, policy, cachedFiles, mirrorSets } = database;
  return { index, policy, cachedFiles, mirrorSets, blobs, close: () => database.close() };
};
