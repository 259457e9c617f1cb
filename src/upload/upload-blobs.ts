/**
 * The blobs one upload commits, so that an upload the store still refuses can take back what it added.
 * Blobs are content-addressed and shared: a blob is removed only when this upload created it, no record
 * references it, and no one has committed the same bytes since (a commit of an existing blob renews its
 * mtime, as garbage collection expects).
 */
import { referencedBlobs } from '../store/blob-references.js';
import type { BlobStore } from '../store/blob-store.js';
import type { CachedFileIndex } from '../store/cached-file-index.js';
import type { IndexReads } from '../store/index-store.js';

export class UploadBlobs {
  /** Blobs that did not exist before this upload committed them, with their mtime right after. */
  private readonly added: { sha256: string; mtimeMs: number }[] = [];

  constructor(
    private readonly blobs: BlobStore,
    private readonly index: IndexReads,
    private readonly cachedFiles: CachedFileIndex,
  ) {}

  /** Makes a finished temporary file the blob `sha256` (see BlobStore.commit). */
  async commit(tmpPath: string, sha256: string): Promise<void> {
    await this.track(sha256, () => this.blobs.commit(tmpPath, sha256));
  }

  async writeBuffer(bytes: Buffer, sha256: string): Promise<void> {
    await this.track(sha256, () => this.blobs.writeBuffer(bytes, sha256));
  }

  private async track(sha256: string, commit: () => Promise<void>): Promise<void> {
    const existed = await this.blobs.has(sha256);
    await commit();
    const mtimeMs = existed ? null : await this.blobs.modifiedAt(sha256);
    if (mtimeMs !== null) this.added.push({ sha256, mtimeMs });
  }

  /** Removes the blobs this upload added that nothing references. Call it only once the upload has failed. */
  async takeBack(): Promise<void> {
    const added = this.added.splice(0);
    if (added.length === 0) return;
    const referenced = await referencedBlobs(this.index, this.cachedFiles);
    for (const { sha256, mtimeMs } of added) {
      if (referenced.has(sha256)) continue;
      if ((await this.blobs.modifiedAt(sha256)) === mtimeMs) await this.blobs.remove(sha256);
    }
  }
}
