/**
 * The connection pool to one PostgreSQL database (npm `postgres`), with every wait bounded: connecting,
 * idling, each statement on the server, and each operation as a whole on this side. Operations run through
 * `run()`, which reports their latency to `observe` and turns "cannot reach the database" into
 * `BackendUnavailable` with a message a person can act on. The password never appears in a message.
 */
import postgres, { type Sql } from 'postgres';
import { BackendUnavailable } from '../backend-unavailable.js';

export interface PgDatabaseOptions {
  /** Connections in the pool (the LISTEN connection and the download-lock connection come on top). */
  maxConnections?: number;
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** Server-side bound of one statement. */
  statementTimeoutMs?: number;
  /** Bound of one operation (a query or a whole transaction) on this side. */
  operationTimeoutMs?: number;
  /** Called after each operation with its name, its duration and whether it succeeded (for /metrics). */
  observe?: (operation: string, ms: number, ok: boolean) => void;
  /** A monotonic clock in milliseconds (latencies, bounds). */
  now?: () => number;
}

/** Error codes of npm `postgres` and Node sockets that mean the database cannot be reached. */
const UNREACHABLE_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** SQLSTATEs meaning the same: connection exceptions (08), shutdown (57P), statement timeout, too many connections. */
function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return UNREACHABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '57014' || code === '53300';
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

export class PgDatabase {
  readonly sql: Sql;
  /** The URL as it may be printed. */
  readonly where: string;
  readonly operationTimeoutMs: number;
  private readonly observe: PgDatabaseOptions['observe'];
  private readonly now: () => number;

  constructor(
    private readonly url: string,
    private readonly options: PgDatabaseOptions = {},
  ) {
    this.where = redactUrl(url);
    this.operationTimeoutMs = options.operationTimeoutMs ?? 5000;
    this.observe = options.observe;
    this.now = options.now ?? (() => performance.now());
    this.sql = this.connect({ max: options.maxConnections ?? 10 });
  }

  private connect(extra: postgres.Options<Record<string, postgres.PostgresType>>): Sql {
    const { options } = this;
    return postgres(this.url, {
      connect_timeout: Math.max(1, Math.round((options.connectTimeoutMs ?? 3000) / 1000)),
      idle_timeout: Math.max(1, Math.round((options.idleTimeoutMs ?? 60_000) / 1000)),
      connection: { statement_timeout: options.statementTimeoutMs ?? 10_000, application_name: 'larder' },
      // Reconnect attempts (also of the LISTEN connection) at most 2 s apart, so a restarted database is found soon.
      backoff: (attempt: number) => Math.min(0.1 * 2 ** attempt, 2),
      onnotice: () => {},
      ...extra,
    });
  }

  /**
   * A pool of one connection that lives as long as it can (no idle or lifetime limit): for session state
   * such as advisory locks. `onClose` is called whenever that connection is lost (its session state with it).
   */
  single(onClose: () => void): Sql {
    return this.connect({ max: 1, idle_timeout: undefined, max_lifetime: null, onclose: onClose });
  }

  /** The error a failed operation becomes: `BackendUnavailable` when the database could not be reached. */
  unavailable(err: unknown): unknown {
    if (err instanceof BackendUnavailable || !isUnreachable(err)) return err;
    const reason = err instanceof Error ? err.message : String(err);
    const state = (err as { code?: unknown }).code === '57014' ? 'is too slow' : 'is unreachable';
    const message = `the database (${this.where}) ${state}: ${reason}; uploads and changes are refused until it is back`;
    return new BackendUnavailable('postgres', message, { cause: err });
  }

  /** Runs one operation, bounded by `timeoutMs` (`operationTimeoutMs`), observed, with unreachability mapped to `BackendUnavailable`. */
  async run<T>(operation: string, fn: (sql: Sql) => Promise<T>, timeoutMs = this.operationTimeoutMs): Promise<T> {
    const started = this.now();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const seconds = timeoutMs / 1000;
        reject(
          new BackendUnavailable(
            'postgres',
            `the database (${this.where}) did not answer within ${seconds} s; uploads and changes are refused until it answers`,
          ),
        );
      }, timeoutMs);
    });
    const work = fn(this.sql);
    work.catch(() => {});
    try {
      const result = await Promise.race([work, bound]);
      this.observe?.(operation, this.now() - started, true);
      return result;
    } catch (err) {
      this.observe?.(operation, this.now() - started, false);
      throw this.unavailable(err);
    } finally {
      clearTimeout(timer);
    }
  }

  async ping(): Promise<void> {
    await this.run('ping', (sql) => sql`SELECT 1`);
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 1 });
  }
}
