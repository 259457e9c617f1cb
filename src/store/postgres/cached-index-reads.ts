/**
 * The reads a request makes, cached per node: a project with its releases, files and removed file names
 * (read in one query, so one snapshot), the last serial and the number of projects, users, tokens and
 * logged-out sessions. Each cache is bounded and emptied by the change feed (change-feed.ts); everything
 * else is read from the database each time (index-reads.ts). Records handed out are frozen: every
 * reader of this node shares them.
 */
import type { FileRecord, ProjectRecord, ReleaseRecord, TokenRecord, UserRecord } from '../records.js';
import type { ChangeFeed } from './change-feed.js';
import { select } from './database.js';
import { type Run, SqlIndexReads } from './index-reads.js';
import { ReadCache } from './read-cache.js';
import { fileOf, projectOf, releaseOf } from './rows.js';

/** A project and what hangs under its name; `record` is undefined when only removed file names remain (or nothing). */
interface ProjectPart {
  record: ProjectRecord | undefined;
  releases: Map<string, ReleaseRecord>;
  files: Map<string, FileRecord>;
  deleted: Set<string>;
}

const PART = `
  SELECT (SELECT row_to_json(p) FROM projects p WHERE p.name = $1) AS project,
    (SELECT json_agg(r ORDER BY r.version COLLATE "C") FROM releases r WHERE r.project = $1) AS releases,
    (SELECT json_agg(f ORDER BY f.filename COLLATE "C") FROM files f WHERE f.project = $1) AS files,
    (SELECT json_agg(d.filename) FROM deleted_files d WHERE d.project = $1) AS deleted`;

const deepFreeze = <T extends object>(record: T): T => {
  for (const value of Object.values(record)) if (value && typeof value === 'object' && !Object.isFrozen(value)) deepFreeze(value);
  return Object.freeze(record);
};

/** The key of scopes named `<kind>:<key>`. */
const scoped = (kind: string) => (scope: string) => (scope.startsWith(`${kind}:`) ? scope.slice(kind.length + 1) : undefined);

export interface CacheSizes {
  /** Projects kept (500), and their files and releases in all (20,000). */
  projects?: number;
  projectRecords?: number;
  /** Users, tokens and logged-out sessions, each (2,000). */
  accounts?: number;
}

export class CachedIndexReads extends SqlIndexReads {
  private readonly parts: ReadCache<ProjectPart>;
  private readonly totals: ReadCache<number>;
  private readonly users: ReadCache<UserRecord>;
  private readonly tokens: ReadCache<TokenRecord>;
  private readonly sessions: ReadCache<boolean>;

  constructor(run: Run, feed: ChangeFeed, sizes: CacheSizes = {}) {
    super(run);
    const accounts = sizes.accounts ?? 2000;
    this.parts = new ReadCache(feed, {
      max: sizes.projects ?? 500,
      maxSize: sizes.projectRecords ?? 20_000,
      size: (part) => 1 + part.files.size + part.releases.size,
      keyOf: scoped('project'),
    });
    this.totals = new ReadCache(feed, { max: 2, keyOf: (scope) => (scope.startsWith('project:') ? ['serial', 'count'] : undefined) });
    this.users = new ReadCache(feed, { max: accounts, keyOf: scoped('user') });
    this.tokens = new ReadCache(feed, { max: accounts, keyOf: scoped('token') });
    this.sessions = new ReadCache(feed, { max: accounts, keyOf: scoped('session') });
  }

  private async part(name: string): Promise<ProjectPart> {
    const part = await this.parts.get(name, async () => {
      const [row] = await this.run('read-project', (sql) => select(sql, PART, [name]));
      const releases = ((row?.releases ?? []) as Record<string, unknown>[]).map((r) => deepFreeze(releaseOf(r)));
      const files = ((row?.files ?? []) as Record<string, unknown>[]).map((f) => deepFreeze(fileOf(f)));
      return {
        record: row?.project ? deepFreeze(projectOf(row.project as Record<string, unknown>)) : undefined,
        releases: new Map(releases.map((r) => [r.version, r])),
        files: new Map(files.map((f) => [f.filename, f])),
        deleted: new Set((row?.deleted ?? []) as string[]),
      };
    });
    return part!;
  }

  override async lastSerial(): Promise<number> {
    return (await this.totals.get('serial', () => super.lastSerial()))!;
  }

  override async projectCount(): Promise<number> {
    return (await this.totals.get('count', () => super.projectCount()))!;
  }

  override async getProject(name: string): Promise<ProjectRecord | undefined> {
    return (await this.part(name)).record;
  }

  override async getReleases(project: string): Promise<ReleaseRecord[]> {
    return [...(await this.part(project)).releases.values()];
  }

  override async getRelease(project: string, version: string): Promise<ReleaseRecord | undefined> {
    return (await this.part(project)).releases.get(version);
  }

  override async getFiles(project: string): Promise<FileRecord[]> {
    return [...(await this.part(project)).files.values()];
  }

  override async getFile(project: string, filename: string): Promise<FileRecord | undefined> {
    return (await this.part(project)).files.get(filename);
  }

  override async isFilenameDeleted(project: string, filename: string): Promise<boolean> {
    return (await this.part(project)).deleted.has(filename);
  }

  override getUser(name: string): Promise<UserRecord | undefined> {
    return this.users.get(name, async () => {
      const user = await super.getUser(name);
      return user && deepFreeze(user);
    });
  }

  override getTokenByHash(hash: string): Promise<TokenRecord | undefined> {
    return this.tokens.get(hash, async () => {
      const token = await super.getTokenByHash(hash);
      return token && deepFreeze(token);
    });
  }

  override async isSessionEnded(id: string): Promise<boolean> {
    return (await this.sessions.get(id, () => super.isSessionEnded(id)))!;
  }
}
