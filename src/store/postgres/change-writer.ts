/**
 * Every write to the shared records: one transaction that makes its change, with the constraints and the
 * row locks of what it touches deciding between nodes (no lock shared by every write), and that tells the
 * other nodes what it changed (delivered at commit, change-feed.ts). Once committed, this node's own
 * caches drop the same scopes, so it reads its write at once. A write that outlived its time limit rolls
 * back; only a commit in flight at that moment can still land (BackendUnavailable means "maybe").
 */
import type pg from 'pg';
import type { ChangeFeed } from './change-feed.js';
import type { PgDatabase } from './database.js';

/** What a write did: its result, and the scopes it changed (none: nothing any cache holds). */
export interface Change<T> {
  result: T;
  scopes: string[];
}

export class ChangeWriter {
  constructor(
    readonly db: PgDatabase,
    readonly feed: ChangeFeed,
  ) {}

  /** `timeoutMs`: the bound of the whole write (`operationTimeoutMs`). */
  async write<T>(operation: string, fn: (tx: pg.PoolClient) => Promise<Change<T>>, timeoutMs?: number): Promise<T> {
    const change = await this.db.run(
      operation,
      (expired) => {
        const abandoned = () => {
          // The caller was told the write failed: roll back rather than commit behind its back.
          if (expired()) throw new Error(`${operation}: abandoned after the time limit`);
        };
        abandoned();
        return this.db.transaction(async (tx) => {
          abandoned();
          const made = await fn(tx);
          await this.feed.publish(tx, made.scopes);
          abandoned();
          return made;
        });
      },
      timeoutMs,
    );
    if (change.scopes.length > 0) this.feed.drop(change.scopes);
    return change.result;
  }
}
