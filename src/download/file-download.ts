/**
 * One verified download from the upstream, shared by every request for the same file, as one straight
 * line: each chunk of the body is checked and hashed, appended to one growing temporary file (in batches
 * of about 1 MiB, spool.ts), and every reader follows that file by position. The last byte is held back
 * until the whole file is verified, and only a verified file is sealed into the blob store; a mismatch
 * fails every reader.
 *
 * When the file cannot be kept (the disk is full or below its reserve, at the start or midway, or the blob
 * store fails the seal) the readers still get it, verified: what is not on disk stays in memory until
 * every reader has had it, and the upstream is read no faster than the slowest reader takes it. Such a
 * download takes no new readers. A download whose size is unknown, or that is not being kept, is
 * abandoned once every reader has gone. Nothing partial is ever kept.
 */
import { unlink } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { GrowingCommit } from '../store/blob-store.js';
import { diskFullError } from '../store/disk-space.js';
import { Changes } from './changes.js';
import { DownloadVerifier } from './download-verifier.js';
import type { DownloadResult, DownloadSpec } from './download-spec.js';
import { Spool } from './spool.js';
import { startedStream } from './started-stream.js';

/** Bytes gathered before they are written to the file in one batch. */
const BATCH = 1 << 20;
/** Bytes received and not yet on disk past which the upstream waits for the write under way. */
const WRITE_BEHIND = 8 * BATCH;
/** Bytes written between two background syncs of the file, so that the last fsync before the last byte is short. */
const SYNC_EVERY = 32 << 20;
/** Files of at least this known size are hashed on the hash worker when there is one (a small file, such as a `.metadata` of unknown size, is not worth starting the thread for). */
const WORKER_HASHING_FROM = 4 << 20;
/** How far the slowest reader of a download that is not kept may fall behind the upstream. */
const MAX_BUFFERED = 8 << 20;

interface Reader {
  position: number;
}

type State = { name: 'running' } | { name: 'done' } | { name: 'failed'; error: Error };

export class FileDownload {
  readonly finished: Promise<DownloadResult>;
  /** The stream of the reader that started the download. */
  readonly first: Promise<Readable>;
  /** Settles once the download takes no more readers: it has ended, or the file is not kept. */
  readonly closed: Promise<void>;
  /** The size when it is known before the end: advertised by the page or by Content-Length. */
  readonly knownSize: number | null;
  private state: State = { name: 'running' };
  private keeping: boolean;
  private abandoned = false;
  private growing: GrowingCommit | null = null;
  private writing: Promise<void> | null = null;
  private syncing: Promise<void> | null = null;
  private synced = 0;
  private readonly readers = new Set<Reader>();
  private readonly changes = new Changes();
  private close!: () => void;

  private constructor(
    private readonly spec: DownloadSpec,
    private readonly spool: Spool,
    private readonly tmpPath: string,
    openError: Error | null,
  ) {
    this.keeping = spec.keep;
    this.knownSize = spec.expected.size ?? spec.contentLength;
    this.closed = new Promise((resolve) => {
      this.close = resolve;
    });
    // The first reader comes before the first byte.
    this.first = this.follow();
    this.first.catch(() => {});
    this.finished = this.run(openError);
    this.finished.catch(() => {});
  }

  /** Starts a download and its first reader. */
  static async start(spec: DownloadSpec): Promise<FileDownload> {
    const tmpPath = spec.blobs.tmpPath('download');
    const { spool, error } = await Spool.open(spec.keep ? tmpPath : null);
    return new FileDownload(spec, spool, tmpPath, error);
  }

  /** May another reader join? Only while the file is being downloaded to be kept. */
  get joinable(): boolean {
    return this.state.name === 'running' && this.keeping;
  }

  private async run(openError: Error | null): Promise<DownloadResult> {
    const { body, expected } = this.spec;
    const large = this.knownSize !== null && this.knownSize >= WORKER_HASHING_FROM;
    const verifier = new DownloadVerifier(expected, this.spec.maxBytes, large ? this.spec.hashWorker : undefined);
    try {
      for (const size of [expected.size, this.spec.contentLength]) if (size !== null) verifier.announced(size);
      if (openError) this.stopKeeping(openError);
      if (this.keeping && expected.hash?.name === 'sha256') this.growing = this.spec.blobs.beginCommit(this.tmpPath, expected.hash.hex);
      for await (const chunk of body) {
        verifier.add(chunk);
        this.spool.append(chunk);
        this.changes.notify();
        if (this.spool.unwritten >= BATCH) {
          // One write in flight while the next batch arrives; the upstream waits only when the disk is far behind.
          if (this.keeping && !this.writing) this.writing = this.write().finally(() => (this.writing = null));
          else if (this.keeping && this.spool.unwritten >= WRITE_BEHIND) await this.writing;
          await verifier.drained();
        }
        while (!this.keeping && !this.abandoned && this.spool.received - this.lowWater() > MAX_BUFFERED) await this.changes.next;
      }
      if (this.abandoned) throw new Error('every client has gone');
      // The last writes and the hash worker's last batches overlap; both are done before anything else.
      const rest = this.writeRest();
      const digest = await verifier.finish().finally(() => rest);
      const kept = this.keeping && (await this.seal(digest));
      this.state = { name: 'done' };
      return { sha256: digest, size: this.spool.received, kept };
    } catch (err) {
      verifier.discard();
      await this.writing;
      await this.syncing;
      this.growing?.abandon();
      this.state = { name: 'failed', error: this.abandoned ? new Error('every client has gone') : (err as Error) };
      // Releases the upstream connection when the body was refused before it was read.
      this.spec.abort();
      throw this.state.error;
    } finally {
      this.close();
      this.changes.notify();
      // Sealed, the file has another name; else it goes. Readers still hold it open.
      await unlink(this.tmpPath).catch(() => {});
      await this.spool.release();
    }
  }

  /** Ends the writing once every byte has arrived: the write under way, the rest, the background sync. Never rejects. */
  private async writeRest(): Promise<void> {
    await this.writing;
    if (this.keeping) await this.write();
    await this.syncing;
  }

  /** Writes what has arrived to the file; a refusal (full disk, below the reserve) stops keeping it. */
  private async write(): Promise<void> {
    if (this.spool.unwritten === 0) return;
    try {
      if (!(await this.spec.mayWrite(this.spool.unwritten))) throw diskFullError('the data disk is below its reserve (LARDER_DISK_RESERVE)');
      await this.spool.flush();
      this.growing?.grew(this.spool.written);
      if (!this.syncing && this.spool.written - this.synced >= SYNC_EVERY) {
        this.synced = this.spool.written;
        // A failure here shows again in the commit's own fsync.
        this.syncing = this.spool
          .sync()
          .catch(() => {})
          .finally(() => (this.syncing = null));
      }
    } catch (err) {
      this.stopKeeping(err as Error);
    }
  }

  /** Makes the verified file the blob and records it; false (delivered, not kept) when that fails. */
  private async seal(digest: string): Promise<boolean> {
    try {
      if (this.growing) await this.growing.finish(this.spool.received);
      else await this.spec.blobs.commit(this.tmpPath, digest);
    } catch (err) {
      this.stopKeeping(err as Error);
      return false;
    }
    await this.spec.onVerified({ sha256: digest, size: this.spool.received });
    return true;
  }

  private stopKeeping(reason: Error): void {
    if (!this.keeping) return;
    this.keeping = false;
    this.spool.stopWriting();
    this.growing?.abandon();
    this.close();
    this.spec.onNotKept(reason);
    if (this.readers.size === 0) this.abandon();
    this.changes.notify();
  }

  private abandon(): void {
    if (this.abandoned || this.state.name !== 'running') return;
    this.abandoned = true;
    this.spec.abort();
    this.changes.notify();
  }

  /** Bytes before this are no longer needed in memory: on disk, or, when the file is not kept, had by every reader. */
  private lowWater(): number {
    if (this.keeping) return this.spool.written;
    let lowest = this.spool.received;
    for (const reader of this.readers) lowest = Math.min(lowest, reader.position);
    return Math.max(this.spool.written, lowest);
  }

  /** A stream of the file's bytes from the start, once the first bytes can be sent (started-stream.ts). */
  async follow(): Promise<Readable> {
    const reader: Reader = { position: 0 };
    this.readers.add(reader);
    this.spool.use();
    return startedStream(this.read(reader), BATCH);
  }

  private async *read(reader: Reader): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        if (this.state.name === 'failed') throw this.state.error;
        // The last byte is held back until the file is verified and kept: a client never receives a
        // complete response whose content failed (or has not yet passed) verification, and a client that
        // has the whole file finds it cached on its next request.
        const done = this.state.name === 'done';
        const end = done ? this.spool.received : Math.max(0, this.spool.received - 1);
        if (reader.position < end) {
          const bytes = await this.spool.read(reader.position, end);
          reader.position += bytes.byteLength;
          if (!this.keeping) this.letGo();
          yield bytes;
        } else if (done) return;
        // Taken in the same turn as the look above, so no change is missed, and only when it is waited on.
        else await this.changes.next;
      }
    } finally {
      this.leave(reader);
    }
  }

  /** Drops what every reader has had, and wakes an upstream read waiting for the slowest reader. */
  private letGo(): void {
    this.spool.dropBefore(this.lowWater());
    this.changes.notify();
  }

  private leave(reader: Reader): void {
    if (!this.readers.delete(reader)) return;
    if (this.readers.size === 0 && (!this.keeping || this.knownSize === null)) this.abandon();
    if (!this.keeping) this.letGo();
    void this.spool.release();
  }
}
