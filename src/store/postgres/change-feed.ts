/**
 * What tells a node's read caches that the database changed. Every write transaction sends, on channel
 * `larder_changes`, the scopes it changed (`project:<name>`, `user:<name>`, `token:<hash>`,
 * `session:<id>`, `policy`), delivered at commit; each node LISTENs and drops what the
 * scopes name. The writing node drops them itself as soon as its commit returns (read-your-writes).
 *
 * A cache may answer only while the LISTEN connection is up (`listening`): notifications sent while it
 * is down are lost, so every (re)connection drops everything. `epoch` changes with every drop, so that a
 * query that started before a change and ends after it does not put its stale answer into a cache.
 * `catchUp()` sends a notification of its own and waits for it: notifications arrive in commit order, so
 * once it is back every change committed before the call has reached the caches.
 */
import { randomUUID } from 'node:crypto';
import type { PgDatabase, Queryable } from './database.js';
import { Listener } from './listener.js';

export const CHANNEL = 'larder_changes';
/** Scopes of one notification are separated by newlines; a payload must stay under PostgreSQL's 8000 bytes. */
const MAX_PAYLOAD = 7000;
const EVERYTHING = '*';
const SYNC = 'sync:';

/** Scopes changed, or null: anything may have changed. */
export type Dropped = (scopes: string[] | null) => void;

export class ChangeFeed {
  private listener: Listener | undefined;
  private readonly subscribers: Dropped[] = [];
  private readonly waiting = new Map<string, () => void>();
  private readonly node = randomUUID();
  private syncs = 0;
  epoch = 0;
  listening = false;

  constructor(private readonly db: PgDatabase) {}

  subscribe(fn: Dropped): void {
    this.subscribers.push(fn);
  }

  /** Listens; `listen: false` (tests, tools) leaves every cache off. */
  async start(listen = true): Promise<void> {
    if (!listen) return;
    this.listener = new Listener(
      this.db,
      CHANNEL,
      (payload) => this.heard(payload),
      () => {
        this.listening = true;
        this.drop(null);
      },
      () => {
        // What the caches hold is kept, to be served only when the database cannot be reached (read-cache.ts).
        this.listening = false;
        this.epoch += 1;
        for (const done of this.waiting.values()) done();
      },
    );
    await this.listener.start();
  }

  async close(): Promise<void> {
    this.listening = false;
    await this.listener?.close();
    for (const done of this.waiting.values()) done();
  }

  /** Inside a write transaction: tells every node, at commit, what it changed. */
  async publish(tx: Queryable, scopes: string[]): Promise<void> {
    if (scopes.length === 0) return;
    const payload = [...new Set(scopes)].join('\n');
    await tx.query('SELECT pg_notify($1, $2)', [CHANNEL, payload.length > MAX_PAYLOAD ? EVERYTHING : payload]);
  }

  /** Drops what the scopes name from this node's caches (after its own commit, or on a notification). */
  drop(scopes: string[] | null): void {
    this.epoch += 1;
    for (const fn of this.subscribers) fn(scopes);
  }

  /** Resolves once every change committed before the call has been dropped from this node's caches. */
  async catchUp(): Promise<void> {
    if (!this.listening) return;
    const token = `${SYNC}${this.node}:${++this.syncs}`;
    const heard = new Promise<void>((resolve) => this.waiting.set(token, resolve));
    try {
      await this.db.run('catch-up', async () => {
        await this.db.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, token]);
        await heard;
      });
    } catch (err) {
      // Not heard in time: nothing cached can be trusted to be current.
      this.drop(null);
      throw err;
    } finally {
      this.waiting.delete(token);
    }
  }

  private heard(payload: string): void {
    if (payload.startsWith(SYNC)) {
      this.waiting.get(payload)?.();
      return;
    }
    this.drop(payload === EVERYTHING ? null : payload.split('\n'));
  }
}
