/**
 * Sends a file to S3 while it is still being written (a download from the upstream): each part of the
 * multipart upload to the final key goes as soon as the file holds its bytes, read back from the file, and
 * the upload is completed only once the whole file is verified, so the blob is visible only then and a
 * verified download waits only for its last parts. At most `queueSize` parts are in memory at once. A
 * file no larger than one part goes the ordinary way (s3-upload.ts) when it is finished.
 */
import { open } from 'node:fs/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { GrowingCommit } from '../blob-store.js';

export interface GrowingUploadTarget {
  client: S3Client;
  bucket: string;
  /** The blob's final key. */
  key: string;
  /** The file being written. */
  path: string;
  /** Bytes per part (at least 5 MiB, S3's smallest but last part). */
  partSize: number;
  /** Parts in flight at once. */
  queueSize: number;
}

interface SentPart {
  PartNumber: number;
  ETag: string;
}

async function readPart(path: string, start: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(bytes, filled, length - filled, start + filled);
      if (bytesRead === 0) throw new Error(`the file ended at ${start + filled} bytes, before its part did`);
      filled += bytesRead;
    }
    return bytes;
  } finally {
    await handle.close();
  }
}

export class GrowingUpload implements GrowingCommit {
  private uploadId: Promise<string> | null = null;
  private readonly parts: Promise<SentPart>[] = [];
  /** Bytes given to parts so far. */
  private sent = 0;
  private written = 0;
  private inFlight = 0;
  private failure: Error | null = null;
  private abandoned = false;
  private wakeUp: (() => void) | null = null;

  /** `whole` finishes a file no larger than one part the ordinary way. */
  constructor(
    private readonly target: GrowingUploadTarget,
    private readonly whole: () => Promise<void>,
  ) {}

  grew(bytes: number): void {
    this.written = bytes;
    this.pump();
  }

  /** Starts the parts the file now holds, as far as the queue allows. */
  private pump(): void {
    const { partSize, queueSize } = this.target;
    while (!this.failure && !this.abandoned && this.inFlight < queueSize && this.written - this.sent >= partSize) this.send(partSize);
  }

  private send(length: number): void {
    const { client, bucket, key, path } = this.target;
    const number = this.parts.length + 1;
    const start = this.sent;
    this.sent += length;
    this.inFlight++;
    const part = (async (): Promise<SentPart> => {
      this.uploadId ??= this.create();
      const uploadId = await this.uploadId;
      const body = await readPart(path, start, length);
      const answer = await client.send(
        new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: number, Body: body, ContentLength: length }),
      );
      if (!answer.ETag) throw new Error(`S3 gave no ETag for part ${number}`);
      return { PartNumber: number, ETag: answer.ETag };
    })();
    this.parts.push(part);
    part.then(
      () => this.settled(),
      (err: unknown) => {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
        this.settled();
      },
    );
  }

  private settled(): void {
    this.inFlight--;
    this.wakeUp?.();
    this.wakeUp = null;
    this.pump();
  }

  private async create(): Promise<string> {
    const { client, bucket, key } = this.target;
    const answer = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'application/octet-stream' }));
    if (!answer.UploadId) throw new Error('S3 gave no upload id');
    return answer.UploadId;
  }

  async finish(size: number): Promise<void> {
    if (this.parts.length === 0 && size <= this.target.partSize) return this.whole();
    this.written = size;
    try {
      while (this.sent < size) {
        if (this.abandoned) throw new Error('the upload was abandoned');
        if (this.failure) throw this.failure;
        if (this.inFlight >= this.target.queueSize) await new Promise<void>((resolve) => (this.wakeUp = resolve));
        else this.send(Math.min(this.target.partSize, size - this.sent));
      }
      const parts = await Promise.all(this.parts);
      if (this.abandoned) throw new Error('the upload was abandoned');
      const { client, bucket, key } = this.target;
      const uploadId = await this.uploadId!;
      await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      this.abandon();
      throw err;
    }
  }

  abandon(): void {
    if (this.abandoned) return;
    this.abandoned = true;
    const { client, bucket, key } = this.target;
    // After the parts in flight, so that none lands after the abort; what is left is purgeTmp's to remove.
    void (async () => {
      await Promise.allSettled(this.parts);
      const uploadId = await this.uploadId;
      if (uploadId) await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    })().catch(() => {});
  }
}
