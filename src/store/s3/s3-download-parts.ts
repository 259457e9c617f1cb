/**
 * The parts of downloads in flight (download-parts.ts) as objects under `<prefix>/tmp/parts/<sha256>/`,
 * one per part, named by its offset: each is written with one PUT (visible only once whole) and found by
 * listing; an empty object `followed` beside them is the announcement. Under tmp/, they are never taken
 * for blobs, and `purgeTmp` removes those a dead node left.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import type { DownloadPart, DownloadParts } from '../download-parts.js';
import { isNotFound } from './s3-errors.js';
import type { S3Keys } from './s3-location.js';

/** Runs one S3 round trip, timed and with its failure described (the blob store's own wrapper). */
export type S3Call = <T>(operation: string, run: () => Promise<T>, expected?: (err: unknown) => boolean) => Promise<T>;

/** Parts removed at once. */
const REMOVALS = 8;

export class S3DownloadParts implements DownloadParts {
  constructor(
    private readonly client: S3Client,
    private readonly keys: S3Keys,
    private readonly call: S3Call,
  ) {}

  private get bucket(): string {
    return this.keys.location.bucket;
  }

  async put(sha256: string, offset: number, bytes: Uint8Array): Promise<void> {
    const key = this.keys.part(sha256, offset);
    await this.call('part put', () =>
      this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.byteLength, ContentType: 'application/octet-stream' }),
      ),
    );
  }

  async list(sha256: string, from = 0): Promise<DownloadPart[]> {
    const parts: DownloadPart[] = [];
    for await (const object of this.objects(sha256, from)) {
      const offset = this.keys.partOffset(sha256, object.key);
      if (offset !== null && offset >= from && object.size) parts.push({ offset, size: object.size });
    }
    return parts.sort((a, b) => a.offset - b.offset);
  }

  /** Every object under the parts' prefix of `sha256`, from the part at `from` on (keys sort by offset). */
  private async *objects(sha256: string, from = 0): AsyncGenerator<{ key: string; size: number }> {
    const startAfter = from > 0 ? this.keys.part(sha256, from - 1) : undefined;
    const pages = paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: this.keys.partsPrefix(sha256), StartAfter: startAfter });
    const iterator = pages[Symbol.asyncIterator]();
    for (;;) {
      const page = await this.call('part list', () => iterator.next());
      if (page.done) return;
      for (const object of page.value.Contents ?? []) if (object.Key) yield { key: object.Key, size: object.Size ?? 0 };
    }
  }

  async announce(sha256: string): Promise<void> {
    const key = this.followedKey(sha256);
    await this.call('part announce', () =>
      this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: new Uint8Array(0), ContentLength: 0 })),
    );
  }

  async announced(sha256: string): Promise<boolean> {
    const key = this.followedKey(sha256);
    try {
      await this.call('part announced', () => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })), isNotFound);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private followedKey(sha256: string): string {
    return `${this.keys.partsPrefix(sha256)}followed`;
  }

  async read(sha256: string, offset: number, range: { start: number; end: number }): Promise<Buffer> {
    const key = this.keys.part(sha256, offset);
    const answer = await this.call('part get', () =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${range.start}-${range.end}` })),
    );
    const bytes = Buffer.from(await answer.Body!.transformToByteArray());
    if (bytes.byteLength !== range.end - range.start + 1) throw new Error(`the download part ${key} holds fewer bytes than were asked for`);
    return bytes;
  }

  async remove(sha256: string): Promise<void> {
    const keys: string[] = [];
    for await (const object of this.objects(sha256)) keys.push(object.key);
    for (let i = 0; i < keys.length; i += REMOVALS) {
      await Promise.all(
        keys.slice(i, i + REMOVALS).map((key) => this.call('part delete', () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })))),
      );
    }
  }
}
