/**
 * Mirror set records in PostgreSQL (`mirror_sets`, one json document per set), so that every node sharing
 * the cached files spares the files any node's mirror sets need. Read from an in-memory copy that the
 * replica reloads whenever a write changed the scope `mirror-sets`.
 */
import type { MirrorSetRecord, MirrorSetStore } from '../mirror-set-store.js';
import { type Queryable, select } from './database.js';
import type { ReplicaPart } from './replica.js';
import type { RevisionWriter } from './revision-writer.js';

const SCOPE = 'mirror-sets';

export class PgMirrorSetStore implements MirrorSetStore, ReplicaPart {
  private sets = new Map<string, MirrorSetRecord>();
  private writer: RevisionWriter | undefined;

  /** Connects the store to its database (open-postgres.ts does it before the replica starts). */
  attach(writer: RevisionWriter): void {
    this.writer = writer;
  }

  private get write(): RevisionWriter['write'] {
    if (!this.writer) throw new Error('the PostgreSQL mirror set store is not attached to a database');
    return this.writer.write.bind(this.writer);
  }

  async load(sql: Queryable, scopes: Set<string> | null): Promise<() => void> {
    if (scopes !== null && !scopes.has(SCOPE)) return () => {};
    const rows = await select(sql, 'SELECT name, record FROM mirror_sets ORDER BY name COLLATE "C"');
    const sets = new Map(rows.map((row) => [String(row.name), Object.freeze(row.record as MirrorSetRecord)]));
    return () => {
      this.sets = sets;
    };
  }

  async get(name: string): Promise<MirrorSetRecord | undefined> {
    return this.sets.get(name);
  }

  async list(): Promise<MirrorSetRecord[]> {
    return [...this.sets.values()];
  }

  put(record: MirrorSetRecord): Promise<void> {
    return this.write('put-mirror-set', async (tx) => {
      await tx.query('INSERT INTO mirror_sets (name, record) VALUES ($1, $2::json) ON CONFLICT (name) DO UPDATE SET record = excluded.record', [
        record.name,
        JSON.stringify(record),
      ]);
      return { result: undefined, scopes: [SCOPE] };
    });
  }

  remove(name: string): Promise<boolean> {
    return this.write('remove-mirror-set', async (tx) => {
      const removed = await select(tx, 'DELETE FROM mirror_sets WHERE name = $1 RETURNING 1', [name]);
      return removed.length === 0 ? { result: false, scopes: [] } : { result: true, scopes: [SCOPE] };
    });
  }
}
