/**
 * Opens the storage the settings name: one data directory (LMDB + files), or that for the node's own
 * caches with the private index, the policy, the records of cached files and the mirror sets in
 * PostgreSQL and the blobs in S3, shared by several larders.
 */
import { openStorage } from './local/open-storage.js';
import type { S3BlobStore } from './s3/s3-blob-store.js';
import type { BackendCheck } from './backend-check.js';
import type { Storage } from './storage.js';

export interface BackendOptions {
  data: string;
  databaseUrl: string | null;
  /** The most connections this node opens to PostgreSQL in all. */
  databasePool: number;
  blobStore: string | null;
  s3Endpoint: string | null;
  s3Region: string | null;
  s3Redirect: boolean;
  /** How long one S3 request may take, retries included (the client's default when absent). */
  s3Deadline?: number;
}

/** Hears each call to a shared backend: which backend, the operation, its time and whether it worked. */
export type BackendObserve = (backend: 'database' | 'blobs') => (operation: string, ms: number, ok: boolean) => void;

/**
 * The S3 blob store `blobStore` names (the region, when not given: the SDK's AWS_REGION, else us-east-1).
 * The S3 SDK (about 30 MiB once loaded) and pg are imported only by a deployment that names them.
 */
export async function openS3Blobs(
  options: Omit<BackendOptions, 'databaseUrl' | 'databasePool'> & { blobStore: string },
  observe?: BackendObserve,
): Promise<S3BlobStore> {
  const { S3BlobStore } = await import('./s3/s3-blob-store.js');
  return new S3BlobStore({
    location: options.blobStore,
    endpoint: options.s3Endpoint ?? undefined,
    region: options.s3Region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    dataDir: options.data,
    redirect: options.s3Redirect,
    deadlineMs: options.s3Deadline,
    observe: observe?.('blobs'),
  });
}

export async function openBackends(options: BackendOptions, observe?: BackendObserve): Promise<Storage> {
  const local = openStorage(options.data);
  if (options.databaseUrl === null && options.blobStore === null) return local;
  try {
    const database =
      options.databaseUrl === null
        ? null
        : await (await import('./postgres/open-postgres.js')).openPostgres(options.databaseUrl, {
            connections: options.databasePool,
            observe: observe?.('database'),
          });
    const s3 = options.blobStore === null ? null : await openS3Blobs({ ...options, blobStore: options.blobStore }, observe);
    const blobs = s3 ?? local.blobs;
    const [localDatabase, localBlobs] = local.backends as [BackendCheck, BackendCheck];
    return {
      ...local,
      index: database?.index ?? local.index,
      policy: database?.policy ?? local.policy,
      advisories: database?.advisories ?? local.advisories,
      cachedFiles: database?.cachedFiles ?? local.cachedFiles,
      mirrorSets: database?.mirrorSets ?? local.mirrorSets,
      blobs,
      downloadLocks: database?.downloadLocks ?? local.downloadLocks,
      publishers: database?.publishers ?? local.publishers,
      audit: database?.audit ?? local.audit,
      backends: [
        database ? { role: 'database', kind: 'postgresql', neededFor: 'writes', ping: () => database.database.ping() } : localDatabase,
        options.blobStore === null ? localBlobs : { role: 'blobs', kind: 's3', neededFor: 'files', ping: () => blobs.ping() },
        ...(database ? [{ ...localDatabase, role: 'cache' }] : []),
      ],
      async close() {
        await database?.close();
        s3?.close();
        await local.close();
      },
    };
  } catch (err) {
    await local.close();
    throw err;
  }
}
