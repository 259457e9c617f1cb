/**
 * Cross-node download locks as PostgreSQL session advisory locks, all taken on one connection of their
 * own: when the node dies the connection drops and the database frees its locks. A key is hashed to the
 * lock's 64-bit number. When the database cannot be reached (or does not answer within the bound), the
 * lock is granted: the node downloads for itself instead of waiting. After any failure the connection is
 * closed (its locks go with it) and the next lock opens a new one.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { DownloadLocks } from '../download-locks.js';
import { type PgDatabase, select } from './database.js';

/** The signed 64-bit lock number of a key, as a decimal string. */
export function lockNumber(key: string): string {
  return createHash('sha256').update(`larder-download\u0000${key}`).digest().readBigInt64BE(0).toString();
}

const nothingToRelease = async () => {};

export class PgDownloadLocks implements DownloadLocks {
  private connection: Promise<pg.Client> | null = null;
  /**
   * Keys this node holds, each with the connection it was taken on. Session locks are re-entrant, so a
   * second holder on this node is refused here; a lost connection lost its locks.
   */
  private readonly held = new Map<string, Promise<pg.Client>>();
  private closed = false;

  constructor(private readonly db: PgDatabase) {}

  async tryLock(key: string): Promise<(() => Promise<void>) | null> {
    if (this.held.has(key) || this.closed) return this.closed ? nothingToRelease : null;
    const id = lockNumber(key);
    const connection = this.connect();
    try {
      const [row] = await this.db.run('download-lock', async () => select(await connection, 'SELECT pg_try_advisory_lock($1::bigint) AS ok', [id]));
      if (!row?.ok) return null;
    } catch (err) {
      this.db.onError(err);
      this.drop(connection);
      return nothingToRelease;
    }
    this.held.set(key, connection);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      if (this.held.get(key) !== connection || this.connection !== connection) return;
      this.held.delete(key);
      try {
        await this.db.run('download-unlock', async () => select(await connection, 'SELECT pg_advisory_unlock($1::bigint)', [id]));
      } catch (err) {
        this.db.onError(err);
        this.drop(connection);
      }
    };
  }

  /** Closing the connection frees every lock this node holds. */
  async close(): Promise<void> {
    this.closed = true;
    const connection = this.connection;
    this.connection = null;
    this.held.clear();
    const client = await connection?.catch(() => null);
    await client?.end().catch(() => {});
  }

  private connect(): Promise<pg.Client> {
    if (this.connection) return this.connection;
    const client = this.db.newClient();
    const connection = client.connect().then(() => client);
    client.on('error', () => this.drop(connection));
    client.on('end', () => this.drop(connection));
    connection.catch(() => this.drop(connection));
    this.connection = connection;
    return connection;
  }

  /** Forgets a connection after a failure and closes it: the database frees whatever locks it still had. */
  private drop(connection: Promise<pg.Client> | null): void {
    if (!connection || this.connection !== connection) return;
    this.connection = null;
    this.held.clear();
    connection.then((client) => client.end()).catch(() => {});
  }
}
