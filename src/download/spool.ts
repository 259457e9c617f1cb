/**
 * The bytes of one download, by position: the first `written` bytes in one growing temporary file, the
 * rest (received, not yet written) in memory. Chunks are written in batches with one positional `writev`,
 * and read back with positional reads on the same open file, which stays readable after it is renamed
 * into the blob store or unlinked. Once writing has stopped (the file is not kept), the memory holds
 * what the readers have not all taken yet.
 */
import { type FileHandle, open } from 'node:fs/promises';

/** Bytes read from the file at a time. */
const READ_SIZE = 1 << 20;

export class Spool {
  /** Bytes received so far. */
  received = 0;
  /** Bytes on disk: the file's first `written` bytes, which never change. */
  written = 0;
  /** The received bytes from `written` on, less those dropped once every reader had them. */
  private tail: Uint8Array[] = [];
  private tailStart = 0;
  private users = 1;
  private writable: boolean;

  private constructor(private file: FileHandle | null) {
    this.writable = file !== null;
  }

  /** A spool writing to `path`; one kept in memory alone when `path` is null or cannot be created. */
  static async open(path: string | null): Promise<{ spool: Spool; error: Error | null }> {
    if (path === null) return { spool: new Spool(null), error: null };
    try {
      return { spool: new Spool(await open(path, 'w+')), error: null };
    } catch (err) {
      return { spool: new Spool(null), error: err as Error };
    }
  }

  /** Bytes received and not yet on disk. */
  get unwritten(): number {
    return this.received - this.written;
  }

  append(chunk: Uint8Array): void {
    this.tail.push(chunk);
    this.received += chunk.byteLength;
  }

  /** Writes every byte received so far, in one batch; rejects when the disk refuses it (`written` then stays where it was). */
  async flush(): Promise<void> {
    const file = this.file;
    if (!file || !this.writable || this.unwritten === 0) return;
    let buffers = this.tail.slice();
    let position = this.written;
    const end = this.received;
    while (position < end) {
      const { bytesWritten } = await file.writev(buffers, position);
      position += bytesWritten;
      buffers = skip(buffers, bytesWritten);
    }
    this.written = end;
    this.dropBefore(end);
  }

  /** Pushes what is written so far to the disk, so that the fsync of the commit has little left to do. */
  async sync(): Promise<void> {
    await this.file?.datasync();
  }

  /** Stops writing: what is not on disk stays in memory for the readers. */
  stopWriting(): void {
    this.writable = false;
  }

  /** Lets go of the memory before `position` that is also on disk or that every reader has had. */
  dropBefore(position: number): void {
    while (this.tail.length && this.tailStart + this.tail[0]!.byteLength <= position) this.tailStart += this.tail.shift()!.byteLength;
  }

  /** Some of the bytes from `position` up to `end` (at least one, at most about 1 MiB). */
  async read(position: number, end: number): Promise<Uint8Array> {
    if (position >= this.tailStart) {
      let start = this.tailStart;
      for (const chunk of this.tail) {
        if (position < start + chunk.byteLength) return chunk.subarray(position - start, Math.min(chunk.byteLength, end - start));
        start += chunk.byteLength;
      }
    }
    if (!this.file || position >= this.written) throw new Error('download bytes are no longer held');
    const buffer = Buffer.allocUnsafe(Math.min(end, this.written, position + READ_SIZE) - position);
    const { bytesRead } = await this.file.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) throw new Error('download file shrank while it was read');
    return bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
  }

  /** One more user of the open file (a reader); each calls `release` once. */
  use(): void {
    this.users++;
  }

  /** Closes the file once its last user (the download itself, then each reader) has released it. */
  async release(): Promise<void> {
    if (--this.users > 0 || !this.file) return;
    const file = this.file;
    this.file = null;
    await file.close().catch(() => {});
  }
}

/** What is left of `buffers` after their first `bytes`. */
function skip(buffers: Uint8Array[], bytes: number): Uint8Array[] {
  let left = bytes;
  let i = 0;
  while (i < buffers.length && left >= buffers[i]!.byteLength) left -= buffers[i++]!.byteLength;
  const rest = buffers.slice(i);
  if (left > 0 && rest.length) rest[0] = rest[0]!.subarray(left);
  return rest;
}
