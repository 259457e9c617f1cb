/**
 * The advisories in PostgreSQL (`advisories`, one json record per advisory and project; `advisory_imports`,
 * the one row saying when the set was imported). `generation()` is this node's counter of imports: bumped
 * by its own, by the other nodes' (their notification names the scope `advisories`) and whenever the node
 * may have missed one (its LISTEN connection came back).
 */
import type { AdvisoryEntry, AdvisorySetInfo, AdvisoryStore } from '../advisory-store.js';
import type { ChangeWriter } from './change-writer.js';
import { select } from './database.js';

const SCOPE = 'advisories';
/** Rows inserted per statement. */
const BATCH = 1000;

export class PgAdvisoryStore implements AdvisoryStore {
  private changes = 0;

  constructor(private readonly writer: ChangeWriter) {
    writer.feed.subscribe((scopes) => {
      if (scopes === null || scopes.includes(SCOPE)) this.changes += 1;
    });
  }

  replaceAll(entries: readonly AdvisoryEntry[], info: AdvisorySetInfo): Promise<void> {
    return this.writer.write(
      'replace-advisories',
      async (tx) => {
        await tx.query('DELETE FROM advisories');
        for (let i = 0; i < entries.length; i += BATCH) {
          const batch = entries.slice(i, i + BATCH);
          await tx.query('INSERT INTO advisories (project, id, record) SELECT * FROM unnest($1::text[], $2::text[], $3::json[])', [
            batch.map((e) => e.project),
            batch.map((e) => e.id),
            batch.map((e) => JSON.stringify(e)),
          ]);
        }
        await tx.query('INSERT INTO advisory_imports (singleton, record) VALUES (true, $1) ON CONFLICT (singleton) DO UPDATE SET record = EXCLUDED.record', [
          JSON.stringify(info),
        ]);
        return { result: undefined, scopes: [SCOPE] };
      },
      this.writer.db.bulkTimeoutMs,
    );
  }

  async entries(): Promise<AdvisoryEntry[]> {
    const text = 'SELECT record FROM advisories ORDER BY project COLLATE "C", id COLLATE "C"';
    const rows = await this.writer.db.run('list-advisories', () => select(this.writer.db.pool, text), this.writer.db.bulkTimeoutMs);
    return rows.map((row) => row.record as AdvisoryEntry);
  }

  async info(): Promise<AdvisorySetInfo | undefined> {
    const rows = await this.writer.db.run('advisory-import', () => select(this.writer.db.pool, 'SELECT record FROM advisory_imports'));
    return rows[0]?.record as AdvisorySetInfo | undefined;
  }

  generation(): number {
    return this.changes;
  }
}
