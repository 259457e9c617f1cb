/**
 * Cross-node download locks as PostgreSQL session advisory locks, all taken on one connection of their
 * own: when the node dies the connection drops and the database frees its locks. A key is hashed to the
 * lock's 64-bit number. When the database cannot be reached (or does not answer within the bound), the
 * lock is granted: the node downloads for itself instead of waiting. After any failure the connection is
 * closed (its locks go with it) and the next lock opens a new one. Queries on the connection run one at a
 * time, in the order they were asked (a `pg` client must not be given a query while another runs).
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { DownloadLocks } from '../download-locks.js';
import { type PgDatabase, type Row, select } from './database.js';

/** The signed 64-bit lock number of a key, as a decimal string. */
export function lockNumber(key: string): string {
  return createHash('sha256').update(`larder-download\u0000${key}`).digest().readBigInt64BE(0).toString();
}

const nothingToRelease = async () => {};

export class PgDownloadLocks implements DownloadLocks {
  private connection: Promise<pg.Client> | null = null;
  /**
   * Keys this node holds or is asking for, each with the connection it was taken on. Session locks are
   * re-entrant, so a second holder on this node is refused here; a lost connection lost its locks.
   */
  private readonly held = new Map<string, Promise<pg.Client>>();
  /** The last query on the connection: the next one waits for it. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly db: PgDatabase) {}

  async tryLock(key: string): Promise<(() => Promise<void>) | null> {
    if (this.closed) return nothingToRelease;
    if (this.held.has(key)) return null;
    const id = lockNumber(key);
    const connection = this.connect();
    // Claimed before asking, so that a second request on this node meanwhile is refused.
    this.held.set(key, connection);
    try {
      const [row] = await this.query(connection, 'download-lock', 'SELECT pg_try_advisory_lock($1::bigint) AS ok', id);
      if (!row?.ok) {
        if (this.held.get(key) === connection) this.held.delete(key);
        return null;
      }
    } catch (err) {
      this.db.onError(err);
      if (this.held.get(key) === connection) this.held.delete(key);
      this.drop(connection);
      return nothingToRelease;
    }
    // The connection was lost while asking: its locks went with it.
    if (this.held.get(key) !== connection) return nothingToRelease;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      if (this.held.get(key) !== connection || this.connection !== connection) return;
      this.held.delete(key);
      try {
        await this.query(connection, 'download-unlock', 'SELECT pg_advisory_unlock($1::bigint)', id);
      } catch (err) {
        this.db.onError(err);
        this.drop(connection);
      }
    };
  }

  /** Runs one statement on the lock connection once the statements asked before it have ended. */
  private query(connection: Promise<pg.Client>, operation: string, text: string, id: string): Promise<Row[]> {
    const run = this.queue.then(() => this.db.run(operation, async () => select(await connection, text, [id])));
    this.queue = run.catch(() => {});
    return run;
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
