/**
 * The records of cached upstream files in PostgreSQL (`cached_files`), shared by every node of one blob
 * store, so that no node deletes a blob another still has a record for. `get` reads the row by its key,
 * `entries` pages through the table, `totals` is one aggregate. A `touch` (the last access, which only
 * orders evictions) is not a write per request: this node keeps the latest time of each touched record
 * and writes them all in one statement every `touchFlushMs` (and at close), never to an earlier time;
 * this node's reads see its touches at once.
 */
import type { CachedFileId, CachedFileIndex } from '../cached-file-index.js';
import type { CachedFileRecord } from '../records.js';
import type { PgDatabase } from './database.js';
import { pages, type Run } from './index-reads.js';
import { cachedFileOf, cachedFileRow, upsert } from './rows.js';

/** Touches kept at most between two flushes; more flush at once. */
const MAX_PENDING = 5000;

const keyOf = (id: CachedFileId) => `${id.project}\u0000${id.filename}\u0000${id.variant}`;

export class PgCachedFileIndex implements CachedFileIndex {
  /** Touched records not yet written: key → id and latest access. */
  private pending = new Map<string, { id: CachedFileId; at: number }>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly run: Run;

  constructor(
    private readonly db: PgDatabase,
    touchFlushMs = 1000,
  ) {
    this.run = (operation, fn) => db.run(operation, () => fn(db.pool));
    this.timer = setInterval(() => void this.flushTouches().catch((err: unknown) => db.onError(err)), touchFlushMs);
    this.timer.unref();
  }

  private touched(id: CachedFileId, record: CachedFileRecord): CachedFileRecord {
    const at = this.pending.get(keyOf(id))?.at;
    return at !== undefined && at > record.lastAccess ? { ...record, lastAccess: at } : record;
  }

  async get(id: CachedFileId): Promise<CachedFileRecord | undefined> {
    const { rows } = await this.run('cached-file-get', (sql) =>
      sql.query('SELECT * FROM cached_files WHERE project = $1 AND filename = $2 AND variant = $3', [id.project, id.filename, id.variant]),
    );
    return rows[0] ? this.touched(id, cachedFileOf(rows[0])) : undefined;
  }

  async put(id: CachedFileId, record: CachedFileRecord): Promise<void> {
    this.pending.delete(keyOf(id));
    await this.run('cached-file-put', (sql) => upsert(sql, cachedFileRow(id, record)));
  }

  async touch(id: CachedFileId, _record: CachedFileRecord, at: number): Promise<void> {
    const key = keyOf(id);
    const known = this.pending.get(key);
    if (!known || known.at < at) this.pending.set(key, { id, at });
    if (this.pending.size >= MAX_PENDING) await this.flushTouches();
  }

  /** Writes the touches kept so far; a failed write keeps them for the next flush. */
  flushTouches(): Promise<void> {
    this.flushing = this.flushing
      .catch(() => {})
      .then(async () => {
        if (this.pending.size === 0) return;
        const batch = this.pending;
        this.pending = new Map();
        const ids = [...batch.values()];
        try {
          await this.run('cached-file-touch', (sql) =>
            sql.query(
              'UPDATE cached_files c SET last_access = GREATEST(c.last_access, t.at) FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS t(project, filename, variant, at) ' +
                'WHERE c.project = t.project AND c.filename = t.filename AND c.variant = t.variant',
              [ids.map((t) => t.id.project), ids.map((t) => t.id.filename), ids.map((t) => t.id.variant), ids.map((t) => t.at)],
            ),
          );
        } catch (err) {
          for (const [key, touch] of batch) {
            const later = this.pending.get(key);
            if (!later || later.at < touch.at) this.pending.set(key, touch);
          }
          throw err;
        }
      });
    return this.flushing;
  }

  async delete(id: CachedFileId): Promise<void> {
    this.pending.delete(keyOf(id));
    await this.run('cached-file-delete', (sql) =>
      sql.query('DELETE FROM cached_files WHERE project = $1 AND filename = $2 AND variant = $3', [id.project, id.filename, id.variant]),
    );
  }

  async *entries(): AsyncIterable<{ id: CachedFileId; record: CachedFileRecord }> {
    for await (const { id, record } of pages(this.run, 'cached_files', ['project', 'filename', 'variant'], (row) => ({
      id: { project: String(row.project), filename: String(row.filename), variant: String(row.variant) },
      record: cachedFileOf(row),
    }))) {
      yield { id, record: this.touched(id, record) };
    }
  }

  async totals(): Promise<{ bytes: number; files: number }> {
    const { rows } = await this.run('cached-file-totals', (sql) => sql.query('SELECT coalesce(sum(size), 0) AS bytes, count(*) AS files FROM cached_files'));
    return { bytes: Number(rows[0]?.bytes ?? 0), files: Number(rows[0]?.files ?? 0) };
  }

  /** Writes the touches kept (best effort: the database may be away) and stops the timer. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushTouches().catch((err: unknown) => this.db.onError(err));
  }
}
