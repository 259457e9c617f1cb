/**
 * The cached-file index in the LMDB database `upstream-files`, keyed [project, filename, variant]. The
 * totals are counted once, at open, then kept up to date by every write of this process: each write is a
 * transaction that reads the record it replaces, so the change in bytes is known in commit order.
 */
import type { Database, RootDatabase } from 'lmdb';
import type { CachedFileId, CachedFileIndex } from '../cached-file-index.js';
import type { CachedFileRecord } from '../records.js';
import type { Key } from './environment.js';
import { written } from './written.js';

const keyOf = (id: CachedFileId): Key => [id.project, id.filename, id.variant];

export class LmdbCachedFileIndex implements CachedFileIndex {
  private readonly db: Database<CachedFileRecord, Key>;
  private counted: { bytes: number; files: number };

  constructor(root: RootDatabase) {
    this.db = root.openDB({ name: 'upstream-files' });
    this.counted = this.count();
  }

  private count(): { bytes: number; files: number } {
    let bytes = 0;
    let files = 0;
    for (const { value } of this.db.getRange()) {
      bytes += value.size;
      files += 1;
    }
    return { bytes, files };
  }

  /** Replaces (or with `record` undefined, removes) one record, and moves the totals by the difference. */
  private async write(id: CachedFileId, record: CachedFileRecord | undefined): Promise<void> {
    const key = keyOf(id);
    try {
      await written(
        this.db.transaction(() => {
          const before = this.db.get(key);
          if (record) this.db.put(key, record);
          else if (before) this.db.remove(key);
          this.counted.bytes += (record?.size ?? 0) - (before?.size ?? 0);
          this.counted.files += (record ? 1 : 0) - (before ? 1 : 0);
        }),
      );
    } catch (err) {
      // The commit failed after the totals moved: count again from what is stored.
      this.counted = this.count();
      throw err;
    }
  }

  async get(id: CachedFileId): Promise<CachedFileRecord | undefined> {
    return this.db.get(keyOf(id));
  }

  put(id: CachedFileId, record: CachedFileRecord): Promise<void> {
    return this.write(id, record);
  }

  touch(id: CachedFileId, record: CachedFileRecord, at: number): Promise<void> {
    return this.put(id, { ...record, lastAccess: at });
  }

  delete(id: CachedFileId): Promise<void> {
    return this.write(id, undefined);
  }

  async *entries(): AsyncIterable<{ id: CachedFileId; record: CachedFileRecord }> {
    for (const { key, value } of this.db.getRange()) {
      const [project, filename, variant] = (key as (string | number)[]).map(String);
      yield { id: { project: project!, filename: filename!, variant: variant! }, record: value };
    }
  }

  async totals(): Promise<{ bytes: number; files: number }> {
    return { ...this.counted };
  }
}
