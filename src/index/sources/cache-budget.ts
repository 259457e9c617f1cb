/**
 * Keeps the bytes of cached upstream files under LARDER_CACHE_MAX_SIZE: when a new file pushes the total
 * over, the least recently used cached files go first (their records, then their blobs). Private files
 * are never touched, nor is a blob a private record also names. Evicted files are fetched again on demand.
 */
import type { Logger } from 'pino';
import type { BlobStore } from '../../store/blob-store.js';
import { written } from '../../store/lmdb-writes.js';
import type { MetaStore, StoreKey } from '../../store/meta-store.js';
import { privateBlobs, type CacheDbs } from './cache-records.js';

export class CacheBudget {
  private used: number | null = null;
  private evicting: Promise<void> | null = null;

  constructor(
    private readonly meta: MetaStore,
    private readonly blobs: BlobStore,
    private readonly dbs: CacheDbs,
    readonly maxBytes: number,
    private readonly logger: Logger,
    private readonly onEvicted: (files: number, bytes: number) => void = () => {},
  ) {}

  private total(): number {
    if (this.used === null) {
      this.used = 0;
      for (const { value } of this.dbs.files.getRange()) this.used += value.size;
    }
    return this.used;
  }

  /** A verified file of `size` bytes was just recorded under `key`. */
  added(key: StoreKey, size: number): Promise<void> {
    this.used = this.total() + size;
    if (this.used <= this.maxBytes) return Promise.resolve();
    this.evicting ??= this.evict(key).finally(() => (this.evicting = null));
    return this.evicting;
  }

  private async evict(keep: StoreKey): Promise<void> {
    const keepId = JSON.stringify(keep);
    const records = Array.from(this.dbs.files.getRange(), ({ key, value }) => ({ key, value }))
      .filter((r) => JSON.stringify(r.key) !== keepId)
      .sort((a, b) => a.value.lastAccess - b.value.lastAccess);
    const protectedShas = privateBlobs(this.meta);
    const stillNamed = new Map<string, number>();
    for (const { value } of this.dbs.files.getRange()) stillNamed.set(value.sha256, (stillNamed.get(value.sha256) ?? 0) + 1);
    let files = 0;
    let bytes = 0;
    for (const { key, value } of records) {
      if (this.total() <= this.maxBytes) break;
      await written(this.dbs.files.remove(key));
      this.used = this.total() - value.size;
      const left = (stillNamed.get(value.sha256) ?? 1) - 1;
      stillNamed.set(value.sha256, left);
      if (left === 0 && !protectedShas.has(value.sha256)) await this.blobs.remove(value.sha256);
      files += 1;
      bytes += value.size;
    }
    if (files > 0) {
      this.onEvicted(files, bytes);
      this.logger.info({ files, bytes, used: this.total(), max: this.maxBytes }, 'evicted least recently used cached files');
    }
  }
}
