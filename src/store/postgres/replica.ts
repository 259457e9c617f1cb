/**
 * Keeps a node's in-memory views in step with the database. Every write transaction adds a row to
 * `revisions` (its number, gap-free in commit order, and the scopes it changed) and notifies
 * `larder_changes`; catching up reads the revisions after the last one applied and reloads what their
 * scopes name, in one snapshot, then applies it to every view in one synchronous step. A node whose
 * revisions were pruned (too far behind) reloads everything. Catch-ups are triggered by NOTIFY (also on
 * each (re)connection of the LISTEN connection), by polling the revision counter every `pollMs` (the
 * fallback), and by `catchUp()`; they run one at a time.
 */
import { type PgDatabase, type Queryable, select } from './database.js';
import { Listener } from './listener.js';

export const CHANNEL = 'larder_changes';

/** One view the replica keeps up to date. */
export interface ReplicaPart {
  /** Loads, inside the snapshot `sql`, what the scopes name (everything when null); returns the synchronous step applying it. */
  load(sql: Queryable, scopes: Set<string> | null): Promise<() => void>;
}

export interface ReplicaOptions {
  /** Polling period of the fallback (ms). */
  pollMs?: number;
  /** False: no LISTEN (polling only). */
  listen?: boolean;
}

export class Replica {
  private applied = 0;
  private needsFull = true;
  private tail: Promise<unknown> = Promise.resolve();
  private queued: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private listener: Listener | undefined;

  constructor(
    private readonly db: PgDatabase,
    private readonly parts: ReplicaPart[],
    private readonly options: ReplicaOptions = {},
  ) {}

  /** The last revision applied to the views. */
  revision(): number {
    return this.applied;
  }

  /** Loads everything, then follows the database. */
  async start(): Promise<void> {
    await this.catchUp();
    if (this.options.listen !== false) {
      const onChange = () => this.background();
      this.listener = new Listener(this.db, CHANNEL, onChange, onChange);
      await this.listener.start().catch(async (err: unknown) => {
        await this.close();
        throw err;
      });
    }
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? 500);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.listener?.close();
  }

  /** Brings the views up to every change committed before the call. */
  catchUp(): Promise<void> {
    this.queued ??= this.exclusive(async () => {
      this.queued = null;
      let apply = await this.read(this.needsFull);
      if (apply === 'reload') apply = await this.read(true);
      if (typeof apply === 'function') apply();
    });
    return this.queued;
  }

  /** One snapshot's changes (everything when `full`, under the longer bound of a reload). */
  private read(full: boolean): Promise<(() => void) | 'reload' | null> {
    const bound = this.db.reloadTimeoutMs;
    return this.db.run(
      full ? 'reload' : 'catch-up',
      () =>
        this.db.transaction(async (tx) => {
          if (full) await tx.query(`SET LOCAL statement_timeout = ${Math.round(bound)}`);
          return this.step(tx, full);
        }, 'ISOLATION LEVEL REPEATABLE READ READ ONLY'),
      full ? bound : undefined,
    );
  }

  /** Resolves once the views include `revision` (read-your-writes). */
  async waitFor(revision: number): Promise<void> {
    for (let attempt = 0; this.applied < revision; attempt++) {
      if (attempt === 3) throw new Error(`revision ${revision} is committed but not found after three catch-ups (at ${this.applied})`);
      await this.catchUp();
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => {});
    return run;
  }

  private background(): void {
    this.catchUp().catch((err: unknown) => this.db.onError(err));
  }

  private async poll(): Promise<void> {
    try {
      const revision = await this.db.run('poll', () => currentRevision(this.db.pool));
      if (revision > this.applied) await this.catchUp();
    } catch (err) {
      this.db.onError(err);
    }
  }

  /**
   * What changed after `revision`, as seen by `sql`: null when nothing did, else the last revision and its
   * scopes (null scopes: everything must be reloaded, the revisions in between were pruned).
   */
  async changesAfter(sql: Queryable, revision: number): Promise<{ revision: number; scopes: Set<string> | null } | null> {
    const rows = await select(sql, 'SELECT revision, scopes FROM revisions WHERE revision > $1 ORDER BY revision', [revision]);
    if (rows.length === 0) return null;
    if (Number(rows[0]!.revision) !== revision + 1) return { revision: await currentRevision(sql), scopes: null };
    return { revision: Number(rows.at(-1)!.revision), scopes: new Set(rows.flatMap((row) => row.scopes as string[])) };
  }

  /** Reads what changed after the last applied revision: the step applying it, null when nothing did, 'reload' when everything must be read. */
  private async step(sql: Queryable, full: boolean): Promise<(() => void) | 'reload' | null> {
    const changes = full ? { revision: await currentRevision(sql), scopes: null } : await this.changesAfter(sql, this.applied);
    if (!changes) return null;
    if (!full && changes.scopes === null) return 'reload';
    // One after another: the parts share one connection, which runs one query at a time.
    const steps: (() => void)[] = [];
    for (const part of this.parts) steps.push(await part.load(sql, changes.scopes));
    return () => {
      for (const apply of steps) apply();
      this.applied = Math.max(this.applied, changes.revision);
      if (full) this.needsFull = false;
    };
  }
}

async function currentRevision(sql: Queryable): Promise<number> {
  const [row] = await select(sql, "SELECT value FROM counters WHERE name = 'revision'");
  return Number(row?.value ?? 0);
}
