/**
 * The downloading node's side of a download shared with other nodes: once another node's client follows
 * it, the file's bytes are read from the start (as one more reader of the download) and written as parts
 * (download-parts.ts), a part once `partBytes` have gathered or once the oldest of them has waited
 * `flushMs`, whichever comes first, so that the other nodes' clients follow a second or so behind. Parts
 * go one at a time, in order; when they fall behind, they are read no faster than they go. A part that
 * cannot be written stops the publishing (the others take the download over once this one ends); the
 * download itself goes on.
 */
import type { DownloadParts } from '../store/download-parts.js';

export interface PublishOptions {
  /** Bytes gathered into one part at most. */
  partBytes: number;
  /** How long a byte waits before it is written (with whatever has gathered by then). */
  flushMs: number;
}

export class PartPublisher {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Where the first pending byte is in the file. */
  private offset: number;
  /** Bytes gathered or being written. */
  private queued = 0;
  private writes: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private failed = false;
  /** Whether a part has been given to be written. */
  private begun = false;

  constructor(
    private readonly parts: DownloadParts,
    private readonly sha256: string,
    from: number,
    private readonly options: PublishOptions,
    private readonly onFailure: (err: Error) => void,
  ) {
    this.offset = from;
  }

  /** Publishes the file's bytes, read from its first, from `from` on; resolves once they have ended and every part is written. */
  async consume(file: AsyncIterable<Uint8Array>): Promise<void> {
    let skip = this.offset;
    try {
      for await (const chunk of file) {
        if (this.failed) break;
        if (skip >= chunk.byteLength) skip -= chunk.byteLength;
        else {
          this.add(skip ? chunk.subarray(skip) : chunk);
          skip = 0;
          if (this.queued > 2 * this.options.partBytes) await this.writes;
        }
      }
    } catch {
      // The download failed: what came before is worth as much to whoever takes over.
    } finally {
      this.flush();
    }
    await this.writes;
  }

  private add(chunk: Uint8Array): void {
    if (this.failed || chunk.byteLength === 0) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.byteLength;
    this.queued += chunk.byteLength;
    if (this.pendingBytes >= this.options.partBytes) this.flush();
    // The first part goes almost at once: the followers are waiting for their first bytes.
    else this.timer ??= setTimeout(() => this.flush(), this.begun ? this.options.flushMs : this.options.flushMs / 10);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.failed || this.pendingBytes === 0) return;
    const bytes = Buffer.concat(this.pending, this.pendingBytes);
    this.begun = true;
    const offset = this.offset;
    this.offset += bytes.byteLength;
    this.pending = [];
    this.pendingBytes = 0;
    this.writes = this.writes.then(async () => {
      try {
        if (!this.failed) await this.parts.put(this.sha256, offset, bytes);
      } catch (err) {
        this.failed = true;
        this.onFailure(err as Error);
      } finally {
        this.queued -= bytes.byteLength;
      }
    });
  }
}
