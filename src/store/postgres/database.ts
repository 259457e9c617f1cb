/**
 * The connection pool to one PostgreSQL database (npm `pg`), with every wait bounded: connecting and
 * waiting for a pooled connection, idling, each statement on the server and each query on this side, and
 * each operation as a whole. Operations run through `run()` or `transaction()`, which report their latency
 * to `observe` and turn "cannot reach the database" into `BackendUnavailable` with a message a person can
 * act on. The password never appears in a message.
 */
import pg from 'pg';
import { BackendUnavailable } from '../backend-unavailable.js';

/** Connections a node opens outside the pool: the LISTEN connection and the download-lock connection. */
export const DEDICATED_CONNECTIONS = 2;

export interface PgDatabaseOptions {
  /**
   * The most connections this node opens to the database in all (10): the dedicated ones, and a pool of
   * what they leave (at least one).
   */
  connections?: number;
  /** Bound of connecting, and of waiting for a free pooled connection. */
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** Server-side bound of one statement. */
  statementTimeoutMs?: number;
  /** Bound of one operation (a query or a whole transaction) on this side. */
  operationTimeoutMs?: number;
  /** Bound of an operation of many statements: migrating, an import; 60 s. */
  bulkTimeoutMs?: number;
  /** Called after each operation with its name, its duration and whether it succeeded (for /metrics). */
  observe?: (operation: string, ms: number, ok: boolean) => void;
  /** Errors nobody awaits (a pooled connection lost while idle, a failed write of touches, a failed reconnection of LISTEN). */
  onError?: (err: unknown) => void;
  /** A monotonic clock in milliseconds (latencies). */
  now?: () => number;
}

/** A row as `pg` returns it (bigint columns arrive as strings). */
export type Row = Record<string, unknown>;

/** The pool, or a connection taken from it (inside a transaction). */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

export async function select(db: Queryable, text: string, values: unknown[] = []): Promise<Row[]> {
  return (await db.query(text, values)).rows;
}

/** Error codes of `pg` and Node sockets that mean the database cannot be reached. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
const UNREACHABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection ended|not queryable/i;

/** Also SQLSTATEs: connection exceptions (08), shutdown (57P), statement timeout, too many connections. */
function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '57014' || code === '53300')) {
    return true;
  }
  return err instanceof Error && UNREACHABLE_MESSAGES.test(err.message);
}

/** The URL without its password (and without query parameters, which may hold one). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${parsed.username}${parsed.password ? ':***' : ''}@` : '';
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

const noop = () => {};

export class PgDatabase {
  readonly pool: pg.Pool;
  /** The URL as it may be printed. */
  readonly where: string;
  readonly operationTimeoutMs: number;
  readonly bulkTimeoutMs: number;
  readonly onError: (err: unknown) => void;
  private readonly now: () => number;

  constructor(
    private readonly url: string,
    private readonly options: PgDatabaseOptions = {},
  ) {
    this.where = redactUrl(url);
    this.operationTimeoutMs = options.operationTimeoutMs ?? 5000;
    this.bulkTimeoutMs = options.bulkTimeoutMs ?? 60_000;
    this.onError = options.onError ?? noop;
    this.now = options.now ?? (() => performance.now());
    const connections = options.connections ?? 10;
    if (!Number.isInteger(connections) || connections <= DEDICATED_CONNECTIONS) {
      throw new RangeError(`a node needs at least ${DEDICATED_CONNECTIONS + 1} database connections (LISTEN, download locks, one pooled), not ${connections}`);
    }
    this.pool = new pg.Pool({
      ...this.clientConfig(),
      max: connections - DEDICATED_CONNECTIONS,
      idleTimeoutMillis: options.idleTimeoutMs ?? 60_000,
    });
    // A pooled connection lost while idle: the pool drops it; nothing else to do.
    this.pool.on('error', (err) => this.onError(this.unavailable(err)));
  }

  /** The settings of every connection to this database. */
  clientConfig(): pg.ClientConfig {
    return {
      connectionString: this.url,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? 3000,
      statement_timeout: this.options.statementTimeoutMs ?? 10_000,
      // A query that outlives every bound above (a connection silently gone) gives its connection up.
      query_timeout: Math.max(this.operationTimeoutMs, this.bulkTimeoutMs, this.options.statementTimeoutMs ?? 10_000) + 1000,
      application_name: 'larder',
      keepAlive: true,
    };
  }

  /** The error a failed operation becomes: `BackendUnavailable` when the database could not be reached. */
  unavailable(err: unknown): unknown {
    if (err instanceof BackendUnavailable || !isUnreachable(err)) return err;
    const reason = err instanceof Error ? err.message : String(err);
    const state = (err as { code?: unknown }).code === '57014' ? 'is too slow' : 'is unreachable';
    const message = `the database (${this.where}) ${state}: ${reason}; uploads and changes are refused until it is back`;
    return new BackendUnavailable('postgres', message, { cause: err });
  }

  /**
   * Runs one operation, bounded by `timeoutMs` (`operationTimeoutMs`), observed, with unreachability mapped
   * to `BackendUnavailable`. `fn` gets `expired()`: true once the caller was answered with the timeout, so
   * that a transaction still running (or still waiting for a connection) rolls back instead of committing.
   */
  async run<T>(operation: string, fn: (expired: () => boolean) => Promise<T>, timeoutMs = this.operationTimeoutMs): Promise<T> {
    const started = this.now();
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        const message = `the database (${this.where}) did not answer within ${timeoutMs / 1000} s; uploads and changes are refused until it answers`;
        reject(new BackendUnavailable('postgres', message));
      }, timeoutMs);
    });
    const work = fn(() => expired);
    work.catch(noop);
    try {
      const result = await Promise.race([work, bound]);
      this.observe(operation, started, true);
      return result;
    } catch (err) {
      this.observe(operation, started, false);
      throw this.unavailable(err);
    } finally {
      clearTimeout(timer);
    }
  }

  private observe(operation: string, started: number, ok: boolean): void {
    this.options.observe?.(operation, this.now() - started, ok);
  }

  /**
   * Runs `fn` in one transaction on one pooled connection (`begin`: e.g. 'ISOLATION LEVEL REPEATABLE READ
   * READ ONLY'): committed when it resolves, rolled back when it throws. A connection that failed is
   * discarded, not returned to the pool.
   */
  async transaction<T>(fn: (tx: pg.PoolClient) => Promise<T>, begin = ''): Promise<T> {
    const client = await this.pool.connect();
    // Errors of the connection while it is ours also reject the query in flight: handled there.
    client.on('error', noop);
    let broken: unknown;
    try {
      await client.query(`BEGIN ${begin}`);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      broken = isUnreachable(err) ? err : undefined;
      if (!broken) await client.query('ROLLBACK').catch((rollback: unknown) => (broken = rollback ?? true));
      throw err;
    } finally {
      client.off('error', noop);
      client.release(broken ? (broken instanceof Error ? broken : true) : undefined);
    }
  }

  /** A connection of its own, outside the pool (LISTEN, session locks), with the same bounds. */
  newClient(): pg.Client {
    return new pg.Client(this.clientConfig());
  }

  async ping(): Promise<void> {
    await this.run('ping', () => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
