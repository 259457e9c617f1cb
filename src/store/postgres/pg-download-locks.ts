/**
 * Cross-node download locks as PostgreSQL session advisory locks, all taken on one reserved connection:
 * when the node dies the connection drops and the database frees its locks. A key is hashed to the lock's
 * 64-bit number. When the database cannot be reached (or does not answer within the bound), the lock is
 * granted: the node downloads for itself instead of waiting.
 */
import { createHash } from 'node:crypto';
import type { ReservedSql } from 'postgres';
import type { DownloadLocks } from '../download-locks.js';
import type { PgDatabase } from './database.js';
import type { Row } from './rows.js';

/** The signed 64-bit lock number of a key, as a decimal string. */
export function lockNumber(key: string): string {
  return createHash('sha256').update(`larder-download\u0000${key}`).digest().readBigInt64BE(0).toString();
}

const released = async () => {};

export class PgDownloadLocks implements DownloadLocks {
  private connection: Promise<ReservedSql> | null = null;
  /** Keys this node holds: session locks are re-entrant, so a second holder on this node must be refused here. */
  private readonly held = new Set<string>();

  constructor(
    private readonly db: PgDatabase,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  async tryLock(key: string): Promise<(() => Promise<void>) | null> {
    if (this.held.has(key)) return null;
    const id = lockNumber(key);
    let connection: ReservedSql;
    try {
      connection = await this.reserved();
      const [row] = await this.bounded('download-lock', connection<Row[]>`SELECT pg_try_advisory_lock(${id}::bigint) AS ok`);
      if (!row?.ok) return null;
    } catch (err) {
      this.drop();
      this.onError(this.db.unavailable(err));
      return released;
    }
    this.held.add(key);
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      this.held.delete(key);
      try {
        await this.bounded('download-unlock', connection`SELECT pg_advisory_unlock(${id}::bigint)`);
      } catch (err) {
        // A lost connection took the lock with it.
        this.drop();
        this.onError(this.db.unavailable(err));
      }
    };
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    this.held.clear();
    const reserved = await connection?.catch(() => null);
    if (reserved) {
      await reserved`SELECT pg_advisory_unlock_all()`.catch(() => {});
      reserved.release();
    }
  }

  private reserved(): Promise<ReservedSql> {
    this.connection ??= this.bounded('download-lock-connection', this.db.sql.reserve());
    return this.connection;
  }

  /**
   * Forgets the connection after an error. A lost connection took its locks with it; one that only answered
   * late gives them up before it goes back to the pool.
   */
  private drop(): void {
    const connection = this.connection;
    this.connection = null;
    this.held.clear();
    void connection
      ?.then(async (c) => {
        await c`SELECT pg_advisory_unlock_all()`.catch(() => {});
        c.release();
      })
      .catch(() => {});
  }

  private bounded<T>(operation: string, work: Promise<T>): Promise<T> {
    return this.db.run(operation, () => work);
  }
}
