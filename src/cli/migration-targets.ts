/**
 * Opens where `larder migrate` moves a data directory to: a database (`--to`) and a blob store (`--blobs`).
 * `file:` URLs name another local data directory (LMDB + files), which is what the tests migrate into.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './args.js';
import { FileBlobStore } from '../store/fs/file-blob-store.js';
import { openStorage } from '../store/local/open-storage.js';
import type { BlobStore } from '../store/blob-store.js';
import type { IndexStore } from '../store/index-store.js';
import type { PolicyStore } from '../store/policy-store.js';

export interface MigrationTargetOptions {
  /** `postgres://…` or `file:/other/data`; null = the records stay. */
  databaseUrl: string | null;
  /** `s3://bucket/prefix` or `file:/other/data`; null = the blobs stay. */
  blobStore: string | null;
  s3Endpoint: string | null;
  s3Region: string | null;
  /** The source data directory (a target may not be the same). */
  data: string;
}

export interface OpenedTargets {
  /** Null for a part that is not migrated. */
  index: IndexStore | null;
  policy: PolicyStore | null;
  blobs: BlobStore | null;
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

export const openMigrationTargets: OpenMigrationTargets = async (options) => {
  const { databaseUrl, blobStore, data } = options;
  if (databaseUrl !== null) {
    if (/^postgres(ql)?:\/\//.test(databaseUrl)) throw new UsageError('--to postgres://…: the PostgreSQL backend is not available in this build');
    if (!databaseUrl.startsWith('file:')) throw new UsageError(`--to ${databaseUrl}: expected postgres://user:password@host/database`);
  }
  if (blobStore !== null) {
    if (blobStore.startsWith('s3://')) throw new UsageError('--blobs s3://…: the S3 blob store is not available in this build');
    if (!blobStore.startsWith('file:')) throw new UsageError(`--blobs ${blobStore}: expected s3://bucket/prefix`);
  }
  const indexDir = databaseUrl === null ? null : localDir(databaseUrl, data, '--to');
  const blobs = blobStore === null ? null : new FileBlobStore(localDir(blobStore, data, '--blobs'));
  if (indexDir === null) return { index: null, policy: null, blobs, close: async () => {} };
  const storage = openStorage(indexDir);
  return { index: storage.index, policy: storage.policy, blobs, close: () => storage.close() };
};
