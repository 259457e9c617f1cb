/**
 * Mirror set records in PostgreSQL (`mirror_sets`, one json document per set), so that every node sharing
 * the cached files spares the files any node's mirror sets need. Read with queries.
 */
import type { MirrorSetRecord, MirrorSetStore } from '../mirror-set-store.js';
import type { ChangeWriter } from './change-writer.js';
import { select } from './database.js';
import { mirrorSetRow, upsert } from './rows.js';

export class PgMirrorSetStore implements MirrorSetStore {
  constructor(private readonly writer: ChangeWriter) {}

  private async read(operation: string, text: string, values: unknown[] = []): Promise<MirrorSetRecord[]> {
    const rows = await this.writer.db.run(operation, () => select(this.writer.db.pool, text, values));
    return rows.map((row) => row.record as MirrorSetRecord);
  }

  async get(name: string): Promise<MirrorSetRecord | undefined> {
    return (await this.read('get-mirror-set', 'SELECT record FROM mirror_sets WHERE name = $1', [name]))[0];
  }

  list(): Promise<MirrorSetRecord[]> {
    return this.read('list-mirror-sets', 'SELECT record FROM mirror_sets ORDER BY name COLLATE "C"');
  }

  put(record: MirrorSetRecord): Promise<void> {
    return this.writer.write('put-mirror-set', async (tx) => {
      await upsert(tx, mirrorSetRow(record));
      return { result: undefined, scopes: [] };
    });
  }

  remove(name: string): Promise<boolean> {
    return this.writer.write('remove-mirror-set', async (tx) => {
      const removed = await select(tx, 'DELETE FROM mirror_sets WHERE name = $1 RETURNING 1', [name]);
      return { result: removed.length > 0, scopes: [] };
    });
  }
}
