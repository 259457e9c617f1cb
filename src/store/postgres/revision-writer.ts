/**
 * Every write to the shared records: one transaction that first locks the revision counter's row (so
 * writers of every node run one after another and see each other's commits), makes its change, and, when
 * something changed, takes the next revision, records the scopes it changed in `revisions` and notifies
 * the other nodes (delivered at commit). It resolves once this node's views include the change (or, when
 * nothing changed, every change the outcome was decided on).
 */
import type { TransactionSql } from 'postgres';
import type { PgDatabase } from './database.js';
import { CHANNEL, type Replica } from './replica.js';
import type { Row } from './rows.js';

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

  async write<T>(operation: string, fn: (tx: TransactionSql) => Promise<Change<T>>): Promise<T> {
    const outcome = await this.db.run(operation, (sql) =>
      sql.begin(async (tx) => {
        const [current] = await tx<Row[]>`SELECT value FROM counters WHERE name = 'revision' FOR UPDATE`;
        const change = await fn(tx);
        if (change.scopes.length === 0) return { result: change.result, revision: Number(current!.value) };
        const [row] = await tx<Row[]>`UPDATE counters SET value = value + 1 WHERE name = 'revision' RETURNING value`;
        const revision = Number(row!.value);
        await tx`INSERT INTO revisions (revision, scopes) VALUES (${revision}, ${[...new Set(change.scopes)]})`;
        await tx`SELECT pg_notify(${CHANNEL}, ${String(revision)})`;
        if (revision % PRUNE_EVERY === 0) await tx`DELETE FROM revisions WHERE revision <= ${revision - this.keep}`;
        return { result: change.result, revision };
      }),
    );
    // Also after no change: the outcome was decided on what the database held then, which the views must show.
    await this.replica.waitFor(outcome.revision);
    return outcome.result as T;
  }
}
