/** The cached-file index in the LMDB database `upstream-files`, keyed [project, filename, variant]. */
import type { Database, RootDatabase } from 'lmdb';
import type { CachedFileId, CachedFileIndex } from '../cached-file-index.js';
import type { CachedFileRecord } from '../records.js';
import type { Key } from './environment.js';
import { written } from './written.js';

const keyOf = (id: CachedFileId): Key => [id.project, id.filename, id.variant];

export class LmdbCachedFileIndex implements CachedFileIndex {
  private readonly db: Database<CachedFileRecord, Key>;

  constructor(root: RootDatabase) {
    this.db = root.openDB({ name: 'upstream-files' });
  }

  get(id: CachedFileId): CachedFileRecord | undefined {
    return this.db.get(keyOf(id));
  }

  async put(id: CachedFileId, record: CachedFileRecord): Promise<void> {
    await written(this.db.put(keyOf(id), record));
  }

  touch(id: CachedFileId, record: CachedFileRecord, at: number): Promise<void> {
    return this.put(id, { ...record, lastAccess: at });
  }

  async delete(id: CachedFileId): Promise<void> {
    await written(this.db.remove(keyOf(id)));
  }

  *entries(): Iterable<{ id: CachedFileId; record: CachedFileRecord }> {
    for (const { key, value } of this.db.getRange()) {
      const [project, filename, variant] = (key as (string | number)[]).map(String);
      yield { id: { project: project!, filename: filename!, variant: variant! }, record: value };
    }
  }

  totals(): { bytes: number; files: number } {
    let bytes = 0;
    let files = 0;
    for (const { value } of this.db.getRange()) {
      bytes += value.size;
      files += 1;
    }
    return { bytes, files };
  }
}
