/**
 * What a test reads of the real S3 (RGW) behind the signing proxy, through the S3 API straight to the gateway
 * (so it is not in the proxy's log): fresh buckets, every object's stored bytes, and unfinished multipart
 * uploads.
 */
import { CreateBucketCommand, GetObjectCommand, ListMultipartUploadsCommand, paginateListObjectsV2, S3Client } from '@aws-sdk/client-s3';
import type { TestS3Credentials } from './s3-server.js';

export interface BucketReader {
  createBucket(name: string): Promise<void>;
  objects(bucket: string): Promise<Map<string, Buffer>>;
  pendingUploads(bucket: string): Promise<string[]>;
  close(): void;
}

export function readBucketsOf(endpoint: string, credentials: TestS3Credentials): BucketReader {
  const client = new S3Client({
    endpoint,
    // us-east-1: the SDK then sends CreateBucket no LocationConstraint, which RGW would refuse as unknown.
    region: 'us-east-1',
    credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    async createBucket(name) {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    async objects(bucket) {
      const keys: string[] = [];
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket })) {
        for (const object of page.Contents ?? []) keys.push(object.Key!);
      }
      const objects = new Map<string, Buffer>();
      for (const key of keys.sort()) {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        objects.set(key, Buffer.from(await answer.Body!.transformToByteArray()));
      }
      return objects;
    },
    async pendingUploads(bucket) {
      const keys: string[] = [];
      let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
      for (;;) {
        const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, ...markers }));
        for (const upload of page.Uploads ?? []) keys.push(upload.Key!);
        if (!page.IsTruncated) return keys.sort();
        markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
      }
    },
    close: () => client.destroy(),
  };
}
