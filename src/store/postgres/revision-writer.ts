/**
 * Every write to the shared records: one transaction that first locks the revision counter's row (so
 * writers of every node run one after another and see each other's commits), makes its change, and, when
 * something changed, takes the next revision, records the scopes it changed in `revisions` and notifies
 * the other nodes (delivered at commit). It resolves once this node's views include the change (or, when
 * nothing changed, every change the outcome was decided on). A write that outlived its time limit rolls
 * back; only a commit in flight at that moment can still land (BackendUnavailable means "maybe").
 */
import type pg from 'pg';
import { type PgDatabase, select } from './database.js';
import { CHANNEL, type Replica } from './replica.js';

/** What a write did: its result, and the scopes it changed (none: nothing was written). */
export interface Change<T> {
  result: T;
  scopes: string[];
}

export interface RevisionWriterOptions {
  /** How many revisions to keep; a node further behind reloads everything. */
  keepRevisions?: number;
}

const PRUNE_EVERY = 100;

export class RevisionWriter {
  private readonly keep: number;

  constructor(
    private readonly db: PgDatabase,
    private readonly replica: Replica,
    options: RevisionWriterOptions = {},
  ) {
    this.keep = options.keepRevisions ?? 10_000;
  }

  async write<T>(operation: string, fn: (tx: pg.PoolClient) => Promise<Change<T>>): Promise<T> {
    const outcome = await this.db.run(operation, (expired) => {
      const abandoned = () => {
        // The caller was told the write failed: roll back rather than commit behind its back.
        if (expired()) throw new Error(`${operation}: abandoned after the time limit`);
      };
      abandoned();
      return this.db.transaction(async (tx) => {
        abandoned();
        const [current] = await select(tx, "SELECT value FROM counters WHERE name = 'revision' FOR UPDATE");
        const change = await fn(tx);
        abandoned();
        if (change.scopes.length === 0) return { result: change.result, revision: Number(current!.value) };
        const [row] = await select(tx, "UPDATE counters SET value = value + 1 WHERE name = 'revision' RETURNING value");
        const revision = Number(row!.value);
        await tx.query('INSERT INTO revisions (revision, scopes) VALUES ($1, $2::text[])', [revision, [...new Set(change.scopes)]]);
        await tx.query('SELECT pg_notify($1, $2)', [CHANNEL, String(revision)]);
        if (revision % PRUNE_EVERY === 0) await tx.query('DELETE FROM revisions WHERE revision <= $1', [revision - this.keep]);
        abandoned();
        return { result: change.result, revision };
      });
    });
    // Also after no change: the outcome was decided on what the database held then, which the views must show.
    // The change is durable: when the view cannot be brought up now (the database went away just after the
    // commit), the write still resolves with what happened, and the view follows when the database is back.
    await this.replica.waitFor(outcome.revision).catch((err: unknown) => this.db.onError(err));
    return outcome.result as T;
  }
}
