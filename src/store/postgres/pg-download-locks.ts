/**
 * Cross-node download locks as PostgreSQL session advisory locks, all taken on one connection of their
 * own: when the node dies the connection drops and the database frees its locks. A key is hashed to the
 * lock's 64-bit number. When the database cannot be reached (or does not answer within the bound), the
 * lock is granted: the node downloads for itself instead of waiting.
 */
import { createHash } from 'node:crypto';
import type { Sql } from 'postgres';
import type { DownloadLocks } from '../download-locks.js';
import type { PgDatabase } from './database.js';
import type { Row } from './rows.js';

/** The signed 64-bit lock number of a key, as a decimal string. */
export function lockNumber(key: string): string {
  return createHash('sha256').update(`larder-download\u0000${key}`).digest().readBigInt64BE(0).toString();
}

const nothingToRelease = async () => {};

export class PgDownloadLocks implements DownloadLocks {
  private readonly sql: Sql;
  /**
   * Keys this node holds, each with the connection generation it was taken on. Session locks are
   * re-entrant, so a second holder on this node is refused here; a lost connection lost its locks.
   */
  private readonly held = new Map<string, number>();
  private generation = 0;

  constructor(
    private readonly db: PgDatabase,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.sql = db.single(() => {
      this.generation += 1;
      this.held.clear();
    });
  }

  async tryLock(key: string): Promise<(() => Promise<void>) | null> {
    if (this.held.has(key)) return null;
    const id = lockNumber(key);
    const query = this.sql<Row[]>`SELECT pg_try_advisory_lock(${id}::bigint) AS ok`;
    try {
      const [row] = await this.db.run('download-lock', () => query);
      if (!row?.ok) return null;
    } catch (err) {
      this.onError(err);
      // A lock granted after the bound has nobody to release it: give it back.
      query.then(([row]) => row?.ok && this.sql`SELECT pg_advisory_unlock(${id}::bigint)`).catch(() => {});
      return nothingToRelease;
    }
    const generation = this.generation;
    this.held.set(key, generation);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      if (this.held.get(key) !== generation || this.generation !== generation) return;
      this.held.delete(key);
      try {
        await this.db.run('download-unlock', () => this.sql`SELECT pg_advisory_unlock(${id}::bigint)`);
      } catch (err) {
        this.onError(err);
      }
    };
  }

  /** Closing the connection frees every lock this node holds. */
  async close(): Promise<void> {
    this.held.clear();
    await this.sql.end({ timeout: 1 });
  }
}
