/**
 * The reads of the private index as queries, on whatever `run` gives them: the pool (each read one bounded
 * operation), a read-only snapshot transaction (`readSnapshot`) or an import's transaction. Point reads use
 * the tables' keys; listings page through an index in key order ("C"), a page at a time.
 */
import type { IndexReads } from '../index-store.js';
import type { ChangelogEntry, FileRecord, ProjectRecord, ReleaseRecord, TokenRecord, UserRecord } from '../records.js';
import { type Queryable, type Row, select } from './database.js';
import { changeOf, fileOf, projectOf, releaseOf, tokenOf, userOf } from './rows.js';

/** Runs one read: `fn` gets the connection (or pool) to query. */
export type Run = <T>(operation: string, fn: (sql: Queryable) => Promise<T>) => Promise<T>;

const PAGE = 500;

/**
 * Every row of `table` in key order, a page of `PAGE` rows per query (keyset: each page starts after the
 * last key of the one before, so rows written meanwhile never shift a page). Table and columns are larder's own.
 */
export async function* pages<T>(run: Run, table: string, key: string[], of: (row: Row) => T, text = true): AsyncIterable<T> {
  const order = key.map((c) => (text ? `${c} COLLATE "C"` : c)).join(', ');
  let after: unknown[] | null = null;
  for (;;) {
    const from: unknown[] | null = after;
    const where: string = from ? `(${order}) > (${from.map((_, i) => `$${i + 1}`).join(', ')})` : 'true';
    const rows: Row[] = await run(`list-${table}`, (sql) => select(sql, `SELECT * FROM ${table} WHERE ${where} ORDER BY ${order} LIMIT ${PAGE}`, from ?? []));
    for (const row of rows) yield of(row);
    if (rows.length < PAGE) return;
    const last: Row = rows.at(-1)!;
    after = key.map((c) => last[c]);
  }
}

async function one<T>(run: Run, operation: string, text: string, values: unknown[], of: (row: Row) => T): Promise<T | undefined> {
  const [row] = await run(operation, (sql) => select(sql, text, values));
  return row ? of(row) : undefined;
}

export class SqlIndexReads implements IndexReads {
  constructor(protected readonly run: Run) {}

  async lastSerial(): Promise<number> {
    const [row] = await this.run('last-serial', (sql) => select(sql, 'SELECT max(serial) AS serial FROM changelog'));
    return Number(row?.serial ?? 0);
  }

  getProject(name: string): Promise<ProjectRecord | undefined> {
    return one(this.run, 'get-project', 'SELECT * FROM projects WHERE name = $1', [name], projectOf);
  }

  listProjects(): AsyncIterable<ProjectRecord> {
    return pages(this.run, 'projects', ['name'], projectOf);
  }

  async projectCount(): Promise<number> {
    const [row] = await this.run('count-projects', (sql) => select(sql, 'SELECT count(*) AS n FROM projects'));
    return Number(row?.n ?? 0);
  }

  async getReleases(project: string): Promise<ReleaseRecord[]> {
    const rows = await this.run('get-releases', (sql) => select(sql, 'SELECT * FROM releases WHERE project = $1 ORDER BY version COLLATE "C"', [project]));
    return rows.map(releaseOf);
  }

  getRelease(project: string, version: string): Promise<ReleaseRecord | undefined> {
    return one(this.run, 'get-release', 'SELECT * FROM releases WHERE project = $1 AND version = $2', [project, version], releaseOf);
  }

  async getFiles(project: string): Promise<FileRecord[]> {
    const rows = await this.run('get-files', (sql) => select(sql, 'SELECT * FROM files WHERE project = $1 ORDER BY filename COLLATE "C"', [project]));
    return rows.map(fileOf);
  }

  getFile(project: string, filename: string): Promise<FileRecord | undefined> {
    return one(this.run, 'get-file', 'SELECT * FROM files WHERE project = $1 AND filename = $2', [project, filename], fileOf);
  }

  async isFilenameDeleted(project: string, filename: string): Promise<boolean> {
    return (await one(this.run, 'is-deleted', 'SELECT 1 FROM deleted_files WHERE project = $1 AND filename = $2', [project, filename], () => true)) ?? false;
  }

  allFiles(): AsyncIterable<FileRecord> {
    return pages(this.run, 'files', ['project', 'filename'], fileOf);
  }

  async changesSince(serial: number): Promise<ChangelogEntry[]> {
    const rows = await this.run('changes-since', (sql) => select(sql, 'SELECT * FROM changelog WHERE serial > $1 ORDER BY serial', [serial]));
    return rows.map(changeOf);
  }

  getUser(name: string): Promise<UserRecord | undefined> {
    return one(this.run, 'get-user', 'SELECT * FROM users WHERE name = $1', [name], userOf);
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.run('list-users', (sql) => select(sql, 'SELECT * FROM users ORDER BY name COLLATE "C"'))).map(userOf);
  }

  getTokenByHash(hash: string): Promise<TokenRecord | undefined> {
    return one(this.run, 'get-token', 'SELECT * FROM tokens WHERE hash = $1', [hash], tokenOf);
  }

  async listTokens(user?: string): Promise<TokenRecord[]> {
    const rows = await this.run('list-tokens', (sql) =>
      select(sql, 'SELECT * FROM tokens WHERE $1::text IS NULL OR user_name = $1 ORDER BY hash COLLATE "C"', [user ?? null]),
    );
    return rows.map(tokenOf);
  }

  async isNameAllowed(name: string): Promise<boolean> {
    return (await one(this.run, 'is-allowed', 'SELECT 1 FROM allowed_names WHERE name = $1', [name], () => true)) ?? false;
  }

  async isSessionEnded(id: string): Promise<boolean> {
    return (await one(this.run, 'is-session-ended', 'SELECT 1 FROM ended_sessions WHERE id = $1', [id], () => true)) ?? false;
  }
}
