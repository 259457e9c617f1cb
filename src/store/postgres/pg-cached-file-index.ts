/**
 * The records of cached upstream files in PostgreSQL (`cached_files`), shared by every node of one blob
 * store, so that no node deletes a blob another still has a record for. Reads come from this node's
 * in-memory view, which the replica reloads per project whenever a write changed `cached:<project>`.
 * `put` and `delete` are revision writes; `touch` (the last access, which only orders evictions) updates
 * the row alone, without a revision or the writers' lock: other nodes see it at their next reload of that
 * project.
 */
import type { CachedFileId, CachedFileIndex } from '../cached-file-index.js';
import type { CachedFileRecord } from '../records.js';
import { type PgDatabase, type Queryable, type Row, select } from './database.js';
import type { ReplicaPart } from './replica.js';
import type { RevisionWriter } from './revision-writer.js';

const SCOPE_PREFIX = 'cached:';
const scopeOf = (project: string) => `${SCOPE_PREFIX}${project}`;

interface Entry {
  id: CachedFileId;
  record: CachedFileRecord;
}

/** The entries of one project, keyed by filename and variant. */
type ProjectEntries = Map<string, Entry>;

const keyOf = (id: CachedFileId) => `${id.filename}\u0000${id.variant}`;

function entryOf(row: Row): Entry {
  return {
    id: Object.freeze({ project: String(row.project), filename: String(row.filename), variant: String(row.variant) }),
    record: Object.freeze({ sha256: String(row.sha256), size: Number(row.size), fetchedAt: Number(row.fetched_at), lastAccess: Number(row.last_access) }),
  };
}

function byProject(rows: Row[]): Map<string, ProjectEntries> {
  const projects = new Map<string, ProjectEntries>();
  for (const row of rows) {
    const entry = entryOf(row);
    let entries = projects.get(entry.id.project);
    if (!entries) {
      entries = new Map();
      projects.set(entry.id.project, entries);
    }
    entries.set(keyOf(entry.id), entry);
  }
  return projects;
}

export class PgCachedFileIndex implements CachedFileIndex, ReplicaPart {
  private projects = new Map<string, ProjectEntries>();
  private bytes = 0;
  private files = 0;
  private writer: RevisionWriter | undefined;

  constructor(private readonly db: PgDatabase) {}

  /** Connects the index to its writer (open-postgres.ts does it before the replica starts). */
  attach(writer: RevisionWriter): void {
    this.writer = writer;
  }

  async load(sql: Queryable, scopes: Set<string> | null): Promise<() => void> {
    if (scopes === null) {
      const all = byProject(await select(sql, 'SELECT * FROM cached_files'));
      return () => {
        this.projects = new Map();
        this.bytes = 0;
        this.files = 0;
        for (const [project, entries] of all) this.replaceProject(project, entries);
      };
    }
    const names = [...scopes].filter((scope) => scope.startsWith(SCOPE_PREFIX)).map((scope) => scope.slice(SCOPE_PREFIX.length));
    if (names.length === 0) return () => {};
    const loaded = byProject(await select(sql, 'SELECT * FROM cached_files WHERE project = ANY($1::text[])', [names]));
    return () => {
      for (const project of names) this.replaceProject(project, loaded.get(project) ?? new Map());
    };
  }

  private replaceProject(project: string, entries: ProjectEntries): void {
    for (const { record } of this.projects.get(project)?.values() ?? []) this.count(record, -1);
    for (const { record } of entries.values()) this.count(record, 1);
    if (entries.size === 0) this.projects.delete(project);
    else this.projects.set(project, entries);
  }

  private count(record: CachedFileRecord, sign: 1 | -1): void {
    this.bytes += sign * record.size;
    this.files += sign;
  }

  private get write(): RevisionWriter['write'] {
    if (!this.writer) throw new Error('the PostgreSQL cached-file index is not attached to a database');
    return this.writer.write.bind(this.writer);
  }

  async get(id: CachedFileId): Promise<CachedFileRecord | undefined> {
    return this.projects.get(id.project)?.get(keyOf(id))?.record;
  }

  put(id: CachedFileId, record: CachedFileRecord): Promise<void> {
    return this.write('cached-file-put', async (tx) => {
      await tx.query(
        'INSERT INTO cached_files (project, filename, variant, sha256, size, fetched_at, last_access) VALUES ($1, $2, $3, $4, $5, $6, $7) ' +
          'ON CONFLICT (project, filename, variant) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size, ' +
          'fetched_at = excluded.fetched_at, last_access = excluded.last_access',
        [id.project, id.filename, id.variant, record.sha256, record.size, record.fetchedAt, record.lastAccess],
      );
      return { result: undefined, scopes: [scopeOf(id.project)] };
    });
  }

  /**
   * The row alone, never to an earlier time: this node's view at once (also when the database is away),
   * the other nodes' views at their next reload of the project.
   */
  async touch(id: CachedFileId, _record: CachedFileRecord, at: number): Promise<void> {
    const entries = this.projects.get(id.project);
    const entry = entries?.get(keyOf(id));
    if (entry && entry.record.lastAccess < at) entries!.set(keyOf(id), { id: entry.id, record: Object.freeze({ ...entry.record, lastAccess: at }) });
    await this.db.run('cached-file-touch', () =>
      this.db.pool.query('UPDATE cached_files SET last_access = GREATEST(last_access, $4) WHERE project = $1 AND filename = $2 AND variant = $3', [
        id.project,
        id.filename,
        id.variant,
        at,
      ]),
    );
  }

  delete(id: CachedFileId): Promise<void> {
    return this.write('cached-file-delete', async (tx) => {
      const removed = await select(tx, 'DELETE FROM cached_files WHERE project = $1 AND filename = $2 AND variant = $3 RETURNING 1', [
        id.project,
        id.filename,
        id.variant,
      ]);
      return { result: undefined, scopes: removed.length > 0 ? [scopeOf(id.project)] : [] };
    });
  }

  async *entries(): AsyncIterable<{ id: CachedFileId; record: CachedFileRecord }> {
    yield* [...this.projects.values()].flatMap((entries) => [...entries.values()]);
  }

  async totals(): Promise<{ bytes: number; files: number }> {
    return { bytes: this.bytes, files: this.files };
  }
}
