/**
 * One verified download from the upstream, shared by every request for the same file. The body is hashed
 * as it arrives and handed to the clients from memory; it is also written to tmp/, and a client that falls
 * behind reads the file. Only a file whose size and hash match what the page advertised is committed to
 * the blob store; a mismatch fails every client, and the last byte is held back until the file is verified.
 *
 * When the file cannot be kept (the disk is full or below its reserve, at the start or midway, or the blob
 * store fails the commit) the clients still get it, verified, from memory — the upstream is then read no
 * faster than the slowest client takes it — and nothing is kept. Such a download takes no new clients. A
 * download whose size is unknown, or that is not being kept, is abandoned once every client has gone.
 * Nothing partial is ever kept.
 */
import { link, open, unlink, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { GrowingCommit } from '../store/blob-store.js';
import { BatchedFileWriter, MAX_IN_FLIGHT } from './batched-file-writer.js';
import { DownloadVerifier } from './download-verifier.js';
import type { DownloadResult, DownloadSpec } from './download-spec.js';
import { ReceivedChunks } from './received-chunks.js';

/** How far the slowest client of a download that is not kept may fall behind the upstream. */
const MAX_BUFFERED = 8 << 20;
const READ_SIZE = 1 << 20;

interface Follower {
  position: number;
}

export class FileDownload {
  state: 'running' | 'done' | 'failed' = 'running';
  readonly finished: Promise<DownloadResult>;
  /** The size when it is known before the end: advertised by the page or by Content-Length. */
  readonly knownSize: number | null;
  private error: Error | null = null;
  private received = 0;
  private keeping: boolean;
  private writer: BatchedFileWriter | null = null;
  /** The blob store's commit begun while the file is written (a store elsewhere, the sha256 known beforehand). */
  private growing: GrowingCommit | null = null;
  private committedPath: string | null = null;
  private readonly tmpPath: string;
  private readonly memory = new ReceivedChunks();
  private readonly followers = new Set<Follower>();
  private waiters: (() => void)[] = [];
  private abandoned = false;
  private closed = false;
  private onClosed: (() => void)[] = [];
  private tmpRemoved = false;

  constructor(private readonly spec: DownloadSpec) {
    this.keeping = spec.keep;
    this.knownSize = spec.expected.size ?? spec.contentLength;
    this.tmpPath = spec.blobs.tmpPath('download');
    this.finished = this.run();
    this.finished.catch(() => {});
  }

  /** May another client join? Only while the file is being downloaded to be kept. */
  get joinable(): boolean {
    return this.state === 'running' && this.keeping;
  }

  private get written(): number {
    return this.writer?.written ?? 0;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Bytes before this are no longer needed in memory: on disk, or taken by every client. */
  private lowWater(): number {
    if (this.keeping) return this.written;
    let lowest = this.received;
    for (const f of this.followers) lowest = Math.min(lowest, f.position);
    return Math.max(this.written, lowest);
  }

  private release(): void {
    this.memory.dropBefore(this.lowWater());
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const callback of this.onClosed) callback();
    this.onClosed = [];
  }

  /** Runs `callback` once the download takes no more clients (done, failed, or not kept). */
  whenClosed(callback: () => void): void {
    if (this.closed) callback();
    else this.onClosed.push(callback);
  }

  private stopKeeping(reason: Error): void {
    if (!this.keeping) return;
    this.keeping = false;
    this.growing?.abandon();
    this.close();
    this.spec.onNotKept(reason);
    if (this.followers.size === 0) this.abandon();
    this.wake();
  }

  private abandon(): void {
    if (this.abandoned || this.state !== 'running') return;
    this.abandoned = true;
    this.spec.abort();
    this.wake();
  }

  private async run(): Promise<DownloadResult> {
    const { body, expected } = this.spec;
    const verifier = new DownloadVerifier(expected, this.spec.maxBytes);
    try {
      for (const size of [expected.size, this.spec.contentLength]) if (size !== null) verifier.announced(size);
      if (this.keeping) await this.openWriter();
      if (this.writer && expected.hash?.name === 'sha256') this.growing = this.spec.blobs.beginCommit(this.tmpPath, expected.hash.hex);
      for await (const chunk of body) {
        verifier.add(chunk);
        this.memory.add(this.received, chunk);
        this.received += chunk.byteLength;
        if (this.keeping) this.writer!.add(chunk);
        this.wake();
        await this.backpressure();
      }
      if (this.abandoned) throw new Error('every client has gone');
      if (this.keeping) await this.writer!.finish();
      const digest = verifier.finish();
      const kept = this.keeping && (await this.commit(digest));
      this.state = 'done';
      return { sha256: digest, size: this.received, kept };
    } catch (err) {
      this.growing?.abandon();
      this.error = this.abandoned ? new Error('every client has gone') : (err as Error);
      this.state = 'failed';
      // Releases the upstream connection when the body was refused before it was read.
      this.spec.abort();
      throw this.error;
    } finally {
      this.close();
      this.wake();
      await this.writer?.close();
      await this.cleanup();
    }
  }

  private async openWriter(): Promise<void> {
    try {
      this.writer = await BatchedFileWriter.open(
        this.tmpPath,
        {
          progress: (written) => {
            this.growing?.grew(written);
            this.release();
            this.wake();
          },
          failed: (err) => this.stopKeeping(err),
        },
        (bytes) => this.spec.mayWrite(bytes),
      );
    } catch (err) {
      this.stopKeeping(err as Error);
    }
  }

  /** Makes the verified tmp file the blob and records it; false (delivered, not kept) when that fails. */
  private async commit(digest: string): Promise<boolean> {
    try {
      if (this.writer!.stopped) throw this.writer!.error;
      const local = this.spec.blobs.localPath(digest);
      if (this.growing) await this.growing.finish(this.received);
      else if (local === null) {
        // A store elsewhere takes the file away: it gets a second name, and the tmp file stays for clients
        // still reading it, until cleanup.
        const upload = `${this.tmpPath}.commit`;
        await link(this.tmpPath, upload);
        await this.spec.blobs.commit(upload, digest).finally(() => unlink(upload).catch(() => {}));
      } else {
        await this.spec.blobs.commit(this.tmpPath, digest);
        this.committedPath = local;
      }
    } catch (err) {
      this.stopKeeping(err as Error);
      return false;
    }
    await this.spec.onVerified({ sha256: digest, size: this.received });
    return true;
  }

  private async backpressure(): Promise<void> {
    for (;;) {
      if (this.abandoned) return;
      if (this.keeping ? this.writer!.inFlight <= MAX_IN_FLIGHT : this.received - this.lowWater() <= MAX_BUFFERED) return;
      await this.changed();
    }
  }

  /** Removes the tmp file once the download has ended and no client may still read it. */
  private async cleanup(): Promise<void> {
    if (this.state === 'running' || this.followers.size > 0 || this.committedPath !== null || this.tmpRemoved) return;
    this.tmpRemoved = true;
    await unlink(this.tmpPath).catch(() => {});
  }

  /**
   * A stream of the file's bytes from the start. Resolves once the first bytes can be sent and rejects if
   * the download fails before that, so a caller that has sent nothing yet can still answer with an error
   * status instead of an empty, broken 200.
   */
  async follow(): Promise<Readable> {
    const follower: Follower = { position: 0 };
    this.followers.add(follower);
    const chunks = this.read(follower);
    let first: IteratorResult<Uint8Array>;
    try {
      first = await chunks.next();
    } catch (err) {
      await chunks.return(undefined);
      throw err;
    }
    async function* all(): AsyncGenerator<Uint8Array> {
      if (first.done) return;
      yield first.value;
      yield* chunks;
    }
    const stream = Readable.from(all(), { objectMode: false, highWaterMark: READ_SIZE });
    stream.once('close', () => void chunks.return(undefined).catch(() => {}));
    return stream;
  }

  private leave(follower: Follower): void {
    if (!this.followers.delete(follower)) return;
    if (this.followers.size === 0 && (!this.keeping || this.knownSize === null)) this.abandon();
    this.release();
    this.wake();
    void this.cleanup();
  }

  private async openFile(): Promise<FileHandle> {
    try {
      return await open(this.committedPath ?? this.tmpPath, 'r');
    } catch (err) {
      // Renamed into the blob store meanwhile: wait for the commit, then read the blob.
      await this.finished.catch(() => {});
      if (!this.committedPath) throw this.error ?? err;
      return open(this.committedPath, 'r');
    }
  }

  private async *read(follower: Follower): AsyncGenerator<Uint8Array> {
    let handle: FileHandle | null = null;
    try {
      for (;;) {
        if (this.state === 'failed') throw this.error!;
        // The last byte is held back until the file is verified and kept: a client never receives a
        // complete response whose content failed (or has not yet passed) verification, and a client that
        // has the whole file finds it cached on its next request.
        const end = this.state === 'done' ? this.received : Math.max(0, this.received - 1);
        if (follower.position < end) {
          let bytes = this.memory.slice(follower.position, end);
          if (!bytes) {
            handle ??= await this.openFile();
            const buffer = Buffer.allocUnsafe(Math.min(end - follower.position, READ_SIZE));
            const { bytesRead } = await handle.read(buffer, 0, buffer.length, follower.position);
            if (bytesRead === 0) throw new Error('download file shrank while it was read');
            bytes = bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
          }
          follower.position += bytes.byteLength;
          if (!this.keeping) this.release();
          this.wake();
          yield bytes;
          continue;
        }
        if (this.state === 'done') return;
        await this.changed();
      }
    } finally {
      await handle?.close().catch(() => {});
      this.leave(follower);
    }
  }
}
