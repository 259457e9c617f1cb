/**
 * Removes what interrupted uploads left in the bucket: temporary keys under `<prefix>/tmp/` and unfinished
 * multipart uploads under the prefix, when they were begun before a time. Servers that keep no list of
 * multipart uploads (answering NotImplemented) leave those to the bucket's lifecycle rule.
 */
import { AbortMultipartUploadCommand, DeleteObjectCommand, ListMultipartUploadsCommand, paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { s3ErrorCode } from './s3-errors.js';
import type { S3Keys } from './s3-location.js';

export async function purgeAbandonedUploads(client: S3Client, keys: S3Keys, beforeMs: number): Promise<number> {
  const bucket = keys.location.bucket;
  let removed = 0;
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: keys.tmpPrefix })) {
    for (const object of page.Contents ?? []) {
      if (!object.Key || (object.LastModified?.getTime() ?? 0) >= beforeMs) continue;
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: object.Key }));
      removed++;
    }
  }
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    const page = await client
      .send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: keys.location.prefix, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }))
      .catch((err: unknown) => {
        if (s3ErrorCode(err) === 'NotImplemented') return null;
        throw err;
      });
    if (!page) return removed;
    for (const upload of page.Uploads ?? []) {
      if (!upload.Key || !upload.UploadId || (upload.Initiated?.getTime() ?? 0) >= beforeMs) continue;
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }));
      removed++;
    }
    if (!page.IsTruncated) return removed;
    keyMarker = page.NextKeyMarker;
    uploadIdMarker = page.NextUploadIdMarker;
  }
}
