/**
 * Keeps the bytes of cached upstream files under LARDER_CACHE_MAX_SIZE: when a new file pushes the total
 * over, the least recently used cached files go first (their records, then their blobs). Private files
 * are never touched, nor is a blob a private record also names, nor a file a mirror set needs (pinned).
 * Evicted files are fetched again on demand.
 */
import type { Logger } from 'pino';
import { privateBlobs } from '../store/blob-references.js';
import type { CachedFileId } from '../store/cached-file-index.js';
import { mirrorFileKey, pinnedFiles } from '../store/mirror-set-store.js';
import type { Storage } from '../store/storage.js';

const sameFile = (a: CachedFileId, b: CachedFileId) => a.project === b.project && a.filename === b.filename && a.variant === b.variant;

export class CacheBudget {
  private evicting: Promise<void> | null = null;

  constructor(
    private readonly storage: Pick<Storage, 'index' | 'cachedFiles' | 'blobs' | 'mirrorSets'>,
    readonly maxBytes: number,
    private readonly logger: Logger,
    private readonly onEvicted: (files: number, bytes: number) => void = () => {},
  ) {}

  /** The bytes recorded, by every node that shares the records. */
  private async total(): Promise<number> {
    return (await this.storage.cachedFiles.totals()).bytes;
  }

  /** A verified file was just recorded as `id`. */
  async added(id: CachedFileId): Promise<void> {
    if ((await this.total()) <= this.maxBytes) return;
    this.evicting ??= this.evict(id).finally(() => (this.evicting = null));
    return this.evicting;
  }

  private async evict(keep: CachedFileId): Promise<void> {
    const { index, cachedFiles, blobs, mirrorSets } = this.storage;
    const all = await Array.fromAsync(cachedFiles.entries());
    const pinned = await pinnedFiles(mirrorSets);
    const records = all
      .filter((r) => !sameFile(r.id, keep) && !pinned.has(mirrorFileKey(r.id.project, r.id.filename, r.id.variant)))
      .sort((a, b) => a.record.lastAccess - b.record.lastAccess);
    const protectedShas = await privateBlobs(index);
    const stillNamed = new Map<string, number>();
    for (const { record } of all) stillNamed.set(record.sha256, (stillNamed.get(record.sha256) ?? 0) + 1);
    let files = 0;
    let bytes = 0;
    // Counted once, then less what this eviction removes: a shared database sums every record per count.
    let used = await this.total();
    for (const { id, record } of records) {
      if (used <= this.maxBytes) break;
      await cachedFiles.delete(id);
      const left = (stillNamed.get(record.sha256) ?? 1) - 1;
      stillNamed.set(record.sha256, left);
      if (left === 0 && !protectedShas.has(record.sha256)) await blobs.remove(record.sha256);
      files += 1;
      bytes += record.size;
      used -= record.size;
    }
    if (files > 0) {
      this.onEvicted(files, bytes);
      this.logger.info({ files, bytes, used, max: this.maxBytes }, 'evicted least recently used cached files');
    }
  }
}
