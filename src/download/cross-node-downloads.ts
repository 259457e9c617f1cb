/**
 * Single-flight of upstream downloads across nodes that share a blob store: the node holding a file's
 * lock downloads it; another node waits (up to a bound) for the verified blob to land in the store and
 * serves it from there, or downloads it itself once the bound has passed.
 */
import type { BlobStore } from '../store/blob-store.js';
import type { DownloadLocks } from '../store/download-locks.js';

export interface CrossNodeOptions {
  /** How long to wait for another node's download before fetching the file ourselves. */
  waitMs: number;
  /** How often the store is asked whether the blob has landed. */
  pollMs: number;
}

export type Release = () => Promise<void>;

export class CrossNodeDownloads {
  constructor(
    private readonly locks: DownloadLocks,
    private readonly blobs: BlobStore,
    private readonly options: CrossNodeOptions,
  ) {}

  /** The lock of blob `sha256`: a release function, or null when another node is downloading it. */
  lock(sha256: string): Promise<Release | null> {
    return this.locks.tryLock(`blob:${sha256}`);
  }

  /** Waits for another node's download of `sha256` to land in the store; false once the bound has passed. */
  async landed(sha256: string): Promise<boolean> {
    const deadline = performance.now() + this.options.waitMs;
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs));
      if (await this.blobs.has(sha256).catch(() => false)) return true;
    }
    return false;
  }
}
