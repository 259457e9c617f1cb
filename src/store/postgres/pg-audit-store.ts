/**
 * The download audit in PostgreSQL (`audit_downloads`), written by every node: a batch is one INSERT of
 * arrays (`unnest`), reads and pruning use the indexes by time and by project and time.
 */
import type { AuditStore, DownloadQuery, DownloadRecord } from '../audit-store.js';
import type { PgDatabase, Row } from './database.js';

/** Rows removed per statement while pruning, so that no statement holds locks on a whole table. */
const PRUNE_STEP = 10_000;

const recordOf = (row: Row): DownloadRecord => ({
  at: Number(row.at),
  client: row.client as string,
  user: row.user_name as string,
  token: (row.token as string | null) ?? null,
  project: row.project as string,
  version: (row.version as string | null) ?? null,
  filename: row.filename as string,
  sha256: (row.sha256 as string | null) ?? null,
});

const COLUMNS = 'at, client, user_name, token, project, version, filename, sha256';

export class PgAuditStore implements AuditStore {
  constructor(private readonly db: PgDatabase) {}

  async append(records: readonly DownloadRecord[]): Promise<void> {
    if (records.length === 0) return;
    const column = <T>(of: (r: DownloadRecord) => T) => records.map(of);
    await this.db.run('audit-append', () =>
      this.db.pool.query(
        `INSERT INTO audit_downloads (${COLUMNS})
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`,
        [
          column((r) => r.at),
          column((r) => r.client),
          column((r) => r.user),
          column((r) => r.token),
          column((r) => r.project),
          column((r) => r.version),
          column((r) => r.filename),
          column((r) => r.sha256),
        ],
      ),
    );
  }

  async downloads({ since, project, limit }: DownloadQuery): Promise<DownloadRecord[]> {
    const { rows } = await this.db.run('audit-downloads', () =>
      project === undefined
        ? this.db.pool.query(`SELECT ${COLUMNS} FROM audit_downloads WHERE at >= $1 ORDER BY at, id LIMIT $2`, [since, limit])
        : this.db.pool.query(`SELECT ${COLUMNS} FROM audit_downloads WHERE project = $1 AND at >= $2 ORDER BY at, id LIMIT $3`, [project, since, limit]),
    );
    return rows.map(recordOf);
  }

  async prune(before: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const { rows } = await this.db.run('audit-prune', () =>
        this.db.pool.query('DELETE FROM audit_downloads WHERE id IN (SELECT id FROM audit_downloads WHERE at < $1 LIMIT $2) RETURNING 1', [before, PRUNE_STEP]),
      );
      removed += rows.length;
      if (rows.length < PRUNE_STEP) return removed;
    }
  }
}
