/**
 * One verified download from the upstream into the blob store, shared by every request for the same file:
 * the body is hashed and written to tmp/ as it arrives, followers read the growing file, and only a file
 * whose size and hash match what the page advertised is committed. A mismatch fails every follower.
 */
import { createHash, type Hash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { BlobStore } from '../../store/blob-store.js';
import type { Hashes } from '../model.js';

/** Hash names node:crypto can check, strongest first. */
const VERIFIABLE = ['sha512', 'sha384', 'sha256', 'sha224', 'sha1', 'md5'] as const;

export function strongestHash(hashes: Hashes): { name: string; hex: string } | null {
  for (const name of VERIFIABLE) {
    const hex = hashes[name];
    if (hex) return { name, hex: hex.toLowerCase() };
  }
  return null;
}

const WRITE_BATCH = 1 << 20;
const MAX_IN_FLIGHT = 4 * WRITE_BATCH;

/** What is left of `buffers` after the first `written` bytes. */
function skipWritten(buffers: Uint8Array[], written: number): Uint8Array[] {
  let skip = written;
  let i = 0;
  while (i < buffers.length && skip >= buffers[i]!.byteLength) skip -= buffers[i++]!.byteLength;
  const rest = buffers.slice(i);
  if (skip > 0 && rest.length) rest[0] = rest[0]!.subarray(skip);
  return rest;
}

export class VerificationError extends Error {
  override name = 'VerificationError';
}

export interface DownloadResult {
  sha256: string;
  size: number;
  path: string;
}

export interface DownloadSpec {
  /** The body, as it arrives from the upstream. */
  body: AsyncIterable<Uint8Array>;
  expected: { hash: { name: string; hex: string } | null; size: number | null };
  blobs: BlobStore;
  /** Runs after the blob is committed and before followers are told the download is done (record it here). */
  onVerified: (result: DownloadResult) => void | Promise<void>;
}

export class FileDownload extends EventEmitter {
  readonly tmpPath: string;
  /** Bytes written to tmpPath so far. */
  written = 0;
  state: 'running' | 'done' | 'failed' = 'running';
  result: DownloadResult | null = null;
  error: Error | null = null;
  readonly finished: Promise<DownloadResult>;

  constructor(private readonly spec: DownloadSpec) {
    super();
    this.setMaxListeners(0);
    this.tmpPath = spec.blobs.tmpPath('download');
    this.finished = this.run();
    this.finished.catch(() => {});
  }

  private async run(): Promise<DownloadResult> {
    const { body, expected, blobs } = this.spec;
    const sha256 = createHash('sha256');
    const check: Hash | null = expected.hash && expected.hash.name !== 'sha256' ? createHash(expected.hash.name) : null;
    let handle: FileHandle | null = null;
    try {
      handle = await open(this.tmpPath, 'w');
      const out = handle;
      // Chunks are written in batches of about 1 MiB (one system call per batch, not per network chunk),
      // and up to a few batches are in flight while more arrives; `written` grows only contiguously.
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      let dispatched = 0;
      let writes: Promise<void> = Promise.resolve();
      const flush = () => {
        let buffers = pending;
        let position = dispatched;
        dispatched += pendingBytes;
        pending = [];
        pendingBytes = 0;
        writes = writes.then(async () => {
          while (buffers.length) {
            const { bytesWritten } = await out.writev(buffers, position);
            position += bytesWritten;
            this.written += bytesWritten;
            buffers = skipWritten(buffers, bytesWritten);
          }
          this.emit('progress');
        });
        writes.catch(() => {});
      };
      for await (const chunk of body) {
        sha256.update(chunk);
        check?.update(chunk);
        pending.push(chunk);
        pendingBytes += chunk.byteLength;
        if (expected.size !== null && dispatched + pendingBytes > expected.size) {
          throw new VerificationError(`received more than the advertised ${expected.size} bytes`);
        }
        if (pendingBytes >= WRITE_BATCH) {
          flush();
          if (dispatched - this.written > MAX_IN_FLIGHT) await writes;
        }
      }
      flush();
      await writes;
      await handle.close();
      handle = null;
      const digest = sha256.digest('hex');
      if (expected.size !== null && this.written !== expected.size) {
        throw new VerificationError(`received ${this.written} bytes, the index advertised ${expected.size}`);
      }
      if (expected.hash) {
        const actual = check ? check.digest('hex') : digest;
        if (actual !== expected.hash.hex) {
          throw new VerificationError(`${expected.hash.name} is ${actual}, the index advertised ${expected.hash.hex}`);
        }
      }
      const path = await blobs.commit(this.tmpPath, digest);
      this.result = { sha256: digest, size: this.written, path };
      await this.spec.onVerified(this.result);
      this.state = 'done';
      this.emit('progress');
      return this.result;
    } catch (err) {
      this.error = err as Error;
      this.state = 'failed';
      await handle?.close().catch(() => {});
      await unlink(this.tmpPath).catch(() => {});
      this.emit('progress');
      throw err;
    }
  }

  /** Resolves once the first byte is on disk or the download has ended (rejects if it failed first). */
  async started(): Promise<void> {
    while (this.state === 'running' && this.written === 0) await new Promise((resolve) => this.once('progress', resolve));
    if (this.state === 'failed' && this.written === 0) throw this.error!;
  }

  /**
   * A stream of the file's bytes from the start, following the download as it grows. Resolves once the
   * first bytes can be sent and rejects if the download fails before that, so a caller that has sent
   * nothing yet can still answer with an error status instead of an empty, broken 200.
   */
  async follow(): Promise<Readable> {
    const chunks = this.readAll();
    const first = await chunks.next();
    async function* all(): AsyncGenerator<Buffer> {
      if (first.done) return;
      yield first.value;
      yield* chunks;
    }
    const stream = Readable.from(all(), { objectMode: false, highWaterMark: 1 << 20 });
    // Closes the file handle even when the stream is destroyed before it was read.
    stream.once('close', () => void chunks.return(undefined).catch(() => {}));
    return stream;
  }

  private async *readAll(): AsyncGenerator<Buffer> {
    let handle: FileHandle;
    try {
      handle = await open(this.tmpPath, 'r');
    } catch (err) {
      if (this.state === 'failed') throw this.error ?? err;
      // Renamed into the blob store meanwhile (the rename comes before `result` and `done` are set):
      // wait for the commit to finish, then read the blob.
      const result = await this.finished;
      handle = await open(result.path, 'r');
    }
    try {
      let position = 0;
      for (;;) {
        if (this.state === 'failed') throw this.error!;
        // The last byte is held back until the file is verified and kept: a client never receives a
        // complete response whose content failed (or has not yet passed) verification, and a client that
        // has the whole file finds it cached on its next request.
        const end = this.state === 'done' ? this.written : Math.max(0, this.written - 1);
        const available = end - position;
        if (available > 0) {
          // A fresh buffer per read is handed on as it is: no copy.
          const buffer = Buffer.allocUnsafe(Math.min(available, 1 << 20));
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
          if (bytesRead === 0) throw new Error('download file shrank while it was read');
          position += bytesRead;
          yield bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
          continue;
        }
        if (this.state === 'done') return;
        await new Promise((resolve) => this.once('progress', resolve));
      }
    } finally {
      await handle.close();
    }
  }
}
