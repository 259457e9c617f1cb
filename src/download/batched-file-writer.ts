/**
 * Appends chunks to a file in batches of about 1 MiB (one system call per batch, not per network chunk),
 * with a few batches in flight while more arrives. `written` grows only contiguously, so the file's first
 * `written` bytes are always readable. A failed write stops the writer; it never throws at the producer.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { diskFullError } from '../store/disk-space.js';

const BATCH = 1 << 20;
/** Bytes handed to the file but not yet written, beyond which the producer should wait. */
export const MAX_IN_FLIGHT = 4 * BATCH;

/** What is left of `buffers` after the first `written` bytes. */
function skipWritten(buffers: Uint8Array[], written: number): Uint8Array[] {
  let skip = written;
  let i = 0;
  while (i < buffers.length && skip >= buffers[i]!.byteLength) skip -= buffers[i++]!.byteLength;
  const rest = buffers.slice(i);
  if (skip > 0 && rest.length) rest[0] = rest[0]!.subarray(skip);
  return rest;
}

export interface WriterEvents {
  /** More bytes are on disk. */
  progress(written: number): void;
  /** A write failed; nothing more is written. */
  failed(err: Error): void;
}

export class BatchedFileWriter {
  written = 0;
  /** Bytes handed to the file so far (written or in flight). */
  dispatched = 0;
  error: Error | null = null;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly handle: FileHandle,
    private readonly events: WriterEvents,
    /** Asked before each batch; false stops the writer (e.g. the disk is below its reserve). */
    private readonly mayWrite: (bytes: number) => Promise<boolean>,
  ) {}

  static async open(path: string, events: WriterEvents, mayWrite: (bytes: number) => Promise<boolean>): Promise<BatchedFileWriter> {
    return new BatchedFileWriter(await open(path, 'w'), events, mayWrite);
  }

  get stopped(): boolean {
    return this.error !== null;
  }

  /** Bytes handed over but not yet on disk. */
  get inFlight(): number {
    return this.dispatched + this.pendingBytes - this.written;
  }

  add(chunk: Uint8Array): void {
    if (this.stopped) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.byteLength;
    if (this.pendingBytes >= BATCH) this.flush();
  }

  /** Writes what is pending and resolves when every write has ended (or the writer stopped). */
  async finish(): Promise<void> {
    this.flush();
    await this.writes;
  }

  async close(): Promise<void> {
    await this.writes;
    await this.handle.close().catch(() => {});
  }

  private stop(err: Error): void {
    if (this.stopped) return;
    this.error = err;
    this.pending = [];
    this.pendingBytes = 0;
    this.events.failed(err);
  }

  private flush(): void {
    if (this.stopped || this.pendingBytes === 0) return;
    let buffers = this.pending;
    const bytes = this.pendingBytes;
    let position = this.dispatched;
    this.dispatched += bytes;
    this.pending = [];
    this.pendingBytes = 0;
    this.writes = this.writes.then(async () => {
      if (this.stopped) return;
      try {
        if (!(await this.mayWrite(bytes))) throw diskFullError('the data disk is below its reserve (LARDER_DISK_RESERVE)');
        while (buffers.length) {
          const { bytesWritten } = await this.handle.writev(buffers, position);
          position += bytesWritten;
          this.written += bytesWritten;
          buffers = skipWritten(buffers, bytesWritten);
        }
        this.events.progress(this.written);
      } catch (err) {
        this.stop(err as Error);
      }
    });
  }
}
