/** S3 blob stores on the test S3 server, and what a bucket holds as the blob store sees it. */
import { S3BlobStore, type S3BlobStoreOptions } from '../../src/store/s3/s3-blob-store.js';
import type { TestS3Server } from './s3-server.js';

/** A store under `s3://<bucket>/larder/blobs` on the test server, with its credentials and region unless `options` say otherwise. */
export function openS3Store(s3: TestS3Server, bucket: string, dataDir: string, options: Partial<S3BlobStoreOptions> = {}): S3BlobStore {
  return new S3BlobStore({
    location: `s3://${bucket}/larder/blobs`,
    endpoint: s3.endpoint,
    region: s3.credentials.region,
    credentials: s3.credentials,
    dataDir,
    redirect: true,
    ...options,
  });
}

/** Every object in the bucket: blobs by sha256, anything else (a leftover temporary key) by its key. */
export async function storedBlobs(s3: TestS3Server, store: S3BlobStore, bucket: string): Promise<Map<string, Buffer>> {
  const kept = new Map<string, Buffer>();
  for (const [key, bytes] of await s3.objects(bucket)) kept.set(store.keys.shaOf(key) ?? key, bytes);
  return kept;
}
