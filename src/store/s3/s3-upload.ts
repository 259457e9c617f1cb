/**
 * Sends a verified local file to S3 so that it appears at its final key only once it is whole. A file that
 * fits in one part goes as one PUT to a temporary key and is then copied server-side to the final key; a
 * larger one goes as a multipart upload straight to the final key, which S3 shows only when the upload is
 * completed. (A PUT to the final key would be visible while being written on some S3-compatible servers;
 * a temporary key, unlike an unfinished multipart upload, can be listed and removed on every server.)
 * The bytes are read as a stream, one part at a time (lib-storage keeps at most part size × queue size in
 * memory), and counted: a file that changed size under the upload fails it instead of storing less.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';

export interface UploadTarget {
  client: S3Client;
  bucket: string;
  /** Bytes per part; a file no larger goes in one PUT. At least 5 MiB (S3's smallest part). */
  partSize: number;
  /** Parts in flight at once. */
  queueSize: number;
}

/** Passes bytes through and fails at the end unless there were exactly `expected`. */
function countedBytes(expected: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > expected) callback(new Error(`the file grew past ${expected} bytes while being uploaded`));
      else callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      callback(seen === expected ? null : new Error(`the file had ${seen} of ${expected} bytes when uploaded`));
    },
  });
}

async function upload(target: UploadTarget, key: string, path: string, size: number): Promise<void> {
  const source = createReadStream(path);
  const body = source.pipe(countedBytes(size));
  source.once('error', (err) => body.destroy(err));
  const job = new Upload({
    client: target.client,
    params: { Bucket: target.bucket, Key: key, Body: body, ContentType: 'application/octet-stream' },
    partSize: target.partSize,
    queueSize: target.queueSize,
    leavePartsOnError: false,
  });
  try {
    await job.done();
  } finally {
    source.destroy();
  }
}

/** Uploads the file at `path` as `key`; `tmpKey` is where a single-part file waits before its copy. */
export async function uploadFile(target: UploadTarget, path: string, key: string, tmpKey: string): Promise<void> {
  const { size } = await stat(path);
  if (size > target.partSize) return upload(target, key, path, size);
  await upload(target, tmpKey, path, size);
  try {
    const copySource = `${target.bucket}/${tmpKey}`.split('/').map(encodeURIComponent).join('/');
    await target.client.send(new CopyObjectCommand({ Bucket: target.bucket, Key: key, CopySource: copySource, MetadataDirective: 'COPY' }));
  } finally {
    await target.client.send(new DeleteObjectCommand({ Bucket: target.bucket, Key: tmpKey })).catch(() => {});
  }
}
