/** Mirror set records in the LMDB database `mirror-sets`, keyed by the set's name. */
import type { Database, RootDatabase } from 'lmdb';
import type { MirrorSetRecord, MirrorSetStore } from '../mirror-set-store.js';
import { written } from './written.js';

export class LmdbMirrorSetStore implements MirrorSetStore {
  private readonly db: Database<MirrorSetRecord, string>;

  constructor(root: RootDatabase) {
    this.db = root.openDB({ name: 'mirror-sets' });
  }

  async get(name: string): Promise<MirrorSetRecord | undefined> {
    return this.db.get(name);
  }

  async list(): Promise<MirrorSetRecord[]> {
    return Array.from(this.db.getRange(), ({ value }) => value);
  }

  async put(record: MirrorSetRecord): Promise<void> {
    await written(this.db.put(record.name, record));
  }

  async remove(name: string): Promise<boolean> {
    if (this.db.get(name) === undefined) return false;
    await written(this.db.remove(name));
    return true;
  }
}
