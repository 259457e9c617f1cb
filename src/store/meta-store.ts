/**
 * LMDB metadata: projects, releases, files, users, tokens, the global serial and the changelog.
 * Every change is one synchronous transaction that also bumps the serial and appends a changelog entry,
 * so a crash leaves either all of a change or none of it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { written } from './lmdb-writes.js';
import type {
  ChangeAction,
  ChangelogEntry,
  FileRecord,
  ProjectRecord,
  ReleaseRecord,
  TokenRecord,
  UserRecord,
} from './records.js';

export type StoreKey = string | number | (string | number)[];
export type ReadTransaction = ReturnType<RootDatabase['useReadTransaction']>;
type Key = StoreKey;

export type PublishResult =
  | { outcome: 'created'; serial: number; newProject: boolean }
  | { outcome: 'identical'; serial: number }
  | { outcome: 'conflict'; existing: FileRecord }
  | { outcome: 'reused-filename' };

export interface PublishInput {
  project: { name: string; displayName: string; serialBase?: number };
  release: { version: string; metadata: Record<string, unknown> };
  file: FileRecord;
  user: string | null;
}

const SERIAL_KEY = 'serial';

/** Upper bound for a prefix range over array keys whose first element is `prefix`. */
const after = (prefix: string) => [`${prefix}\u0000`];

export class MetaStore {
  private readonly root: RootDatabase;
  private readonly projects: Database<ProjectRecord, string>;
  private readonly releases: Database<ReleaseRecord, Key>;
  private readonly files: Database<FileRecord, Key>;
  private readonly deleted: Database<string, Key>;
  private readonly users: Database<UserRecord, string>;
  private readonly tokens: Database<TokenRecord, string>;
  private readonly changelog: Database<ChangelogEntry, number>;
  private readonly counters: Database<number, string>;
  private readonly allowedNames: Database<{ by: string | null; at: string }, string>;

  constructor(dataDir: string) {
    const path = join(dataDir, 'meta');
    mkdirSync(path, { recursive: true });
    this.root = open({ path, maxDbs: 32, compression: false });
    this.projects = this.root.openDB({ name: 'projects' });
    this.releases = this.root.openDB({ name: 'releases' });
    this.files = this.root.openDB({ name: 'files' });
    this.deleted = this.root.openDB({ name: 'deleted-files' });
    this.users = this.root.openDB({ name: 'users' });
    this.tokens = this.root.openDB({ name: 'tokens' });
    this.changelog = this.root.openDB({ name: 'changelog' });
    this.counters = this.root.openDB({ name: 'counters' });
    this.allowedNames = this.root.openDB({ name: 'allowed-names' });
  }

  /** Opens another named database in the same environment (used by the upstream cache). */
  openDB<V>(name: string): Database<V, Key> {
    return this.root.openDB<V, Key>({ name });
  }

  /** Runs `fn` as one durable LMDB transaction. */
  transaction<T>(fn: () => T): T {
    return this.root.transactionSync(fn);
  }

  /**
   * Runs the synchronous `fn` against one consistent snapshot of every database: an LMDB read transaction,
   * which blocks no writer (in this process or another). Pass `{ transaction }` to `get`/`getRange` inside `fn`.
   */
  readSnapshot<T>(fn: (transaction: ReadTransaction) => T): T {
    const transaction = this.root.useReadTransaction();
    try {
      return fn(transaction);
    } finally {
      transaction.done();
    }
  }

  /** Runs `fn` as one asynchronous (batched, still atomic) LMDB write transaction. */
  transactionAsync<T>(fn: () => T): Promise<T> {
    return written(this.root.transaction(fn));
  }

  async close(): Promise<void> {
    await this.root.close();
  }

  lastSerial(): number {
    return this.counters.get(SERIAL_KEY) ?? 0;
  }

  /** Inside a transaction: takes the next serial and records what changed under it (also used by `larder import`). */
  recordChange(project: string, action: ChangeAction, user: string | null, version: string | null = null, filename: string | null = null): number {
    const serial = this.lastSerial() + 1;
    this.counters.putSync(SERIAL_KEY, serial);
    this.changelog.putSync(serial, { serial, project, version, filename, action, user, time: new Date().toISOString() });
    const record = this.projects.get(project);
    if (record) this.projects.putSync(project, { ...record, serial });
    return serial;
  }

  getProject(name: string): ProjectRecord | undefined {
    return this.projects.get(name);
  }

  *listProjects(): Iterable<ProjectRecord> {
    for (const { value } of this.projects.getRange()) yield value;
  }

  projectCount(): number {
    return this.projects.getCount();
  }

  getReleases(project: string): ReleaseRecord[] {
    return Array.from(this.releases.getRange({ start: [project], end: after(project) }), ({ value }) => value);
  }

  getRelease(project: string, version: string): ReleaseRecord | undefined {
    return this.releases.get([project, version]);
  }

  getFiles(project: string): FileRecord[] {
    return Array.from(this.files.getRange({ start: [project], end: after(project) }), ({ value }) => value);
  }

  getFile(project: string, filename: string): FileRecord | undefined {
    return this.files.get([project, filename]);
  }

  /** Was a file of this name removed from the project? Removed file names stay reserved. */
  isFilenameDeleted(project: string, filename: string): boolean {
    return this.deleted.get([project, filename]) !== undefined;
  }

  /** Every file of every project, for statistics and garbage collection. */
  *allFiles(): Iterable<FileRecord> {
    for (const { value } of this.files.getRange()) yield value;
  }

  /**
   * Records an uploaded file whose blob is already durable. Creates the project and release when new.
   * Same filename + same sha256 → identical (nothing written); same filename, other bytes, or a
   * filename once deleted → refused.
   */
  publishFile(input: PublishInput): PublishResult {
    return this.transaction((): PublishResult => {
      const { project, release, file, user } = input;
      const existing = this.files.get([project.name, file.filename]);
      if (existing) {
        return existing.sha256 === file.sha256 && existing.blake2b_256 === file.blake2b_256
          ? { outcome: 'identical', serial: this.projects.get(project.name)?.serial ?? this.lastSerial() }
          : { outcome: 'conflict', existing };
      }
      if (this.deleted.get([project.name, file.filename]) !== undefined) return { outcome: 'reused-filename' };
      const now = file.uploadTime;
      const newProject = !this.projects.get(project.name);
      if (newProject) {
        this.projects.putSync(project.name, {
          name: project.name,
          displayName: project.displayName,
          createdAt: now,
          serial: 0,
          ...(project.serialBase ? { serialBase: project.serialBase } : {}),
          owners: user ? [user] : [],
          maintainers: [],
        });
        this.recordChange(project.name, 'create project', user);
      } else {
        const record = this.projects.get(project.name)!;
        if (record.displayName !== project.displayName) this.projects.putSync(project.name, { ...record, displayName: project.displayName });
      }
      if (!this.releases.get([project.name, release.version])) {
        this.releases.putSync([project.name, release.version], {
          project: project.name,
          version: release.version,
          metadata: release.metadata,
          createdAt: now,
          yanked: false,
          yankedReason: null,
        });
      }
      this.files.putSync([project.name, file.filename], file);
      const serial = this.recordChange(project.name, 'add file', user, release.version, file.filename);
      return { outcome: 'created', serial, newProject };
    });
  }

  setYanked(project: string, version: string, yanked: boolean, reason: string | null, user: string | null): number | null {
    return this.transaction(() => {
      const release = this.releases.get([project, version]);
      if (!release) return null;
      this.releases.putSync([project, version], { ...release, yanked, yankedReason: yanked ? reason || null : null });
      return this.recordChange(project, yanked ? 'yank release' : 'unyank release', user, version);
    });
  }

  /**
   * Removes a file, a release (all its files) or a whole project. Removed filenames stay reserved.
   * Returns the removed files (their blobs may now be orphans), or null when nothing matched.
   */
  remove(project: string, version: string | null, filename: string | null, user: string | null): FileRecord[] | null {
    return this.transaction(() => {
      if (!this.projects.get(project)) return null;
      const files = this.getFiles(project).filter(
        (f) => (version === null || f.version === version) && (filename === null || f.filename === filename),
      );
      const releases = version === null ? this.getReleases(project) : this.getReleases(project).filter((r) => r.version === version);
      if (filename !== null && files.length === 0) return null;
      if (version !== null && releases.length === 0) return null;
      const now = new Date().toISOString();
      for (const f of files) {
        this.files.removeSync([project, f.filename]);
        this.deleted.putSync([project, f.filename], now);
      }
      if (filename === null) {
        for (const r of releases) this.releases.removeSync([project, r.version]);
      }
      if (version === null && filename === null) {
        this.recordChange(project, 'remove project', user);
        this.projects.removeSync(project);
      } else {
        this.recordChange(project, filename === null ? 'remove release' : 'remove file', user, version, filename);
      }
      return files;
    });
  }

  addMaintainer(project: string, user: string, by: string | null): boolean {
    return this.transaction(() => {
      const record = this.projects.get(project);
      if (!record) return false;
      if (!record.maintainers.includes(user) && !record.owners.includes(user)) {
        this.projects.putSync(project, { ...record, maintainers: [...record.maintainers, user] });
        this.recordChange(project, 'add maintainer', by);
      }
      return true;
    });
  }

  changesSince(serial: number): ChangelogEntry[] {
    return Array.from(this.changelog.getRange({ start: serial + 1 }), ({ value }) => value);
  }

  // Users and tokens

  getUser(name: string): UserRecord | undefined {
    return this.users.get(name);
  }

  listUsers(): UserRecord[] {
    return Array.from(this.users.getRange(), ({ value }) => value);
  }

  putUser(user: UserRecord): void {
    this.transaction(() => this.users.putSync(user.name, user));
  }

  /** Removes the user, their tokens and their roles in every project, so that a new user of that name inherits nothing. */
  removeUser(name: string): boolean {
    return this.transaction(() => {
      if (!this.users.get(name)) return false;
      this.users.removeSync(name);
      for (const { key, value } of this.tokens.getRange()) if (value.user === name) this.tokens.removeSync(key);
      const without = (users: string[]) => users.filter((user) => user !== name);
      const roles = Array.from(this.projects.getRange(), ({ value }) => value).filter((p) => p.owners.includes(name) || p.maintainers.includes(name));
      for (const p of roles) this.projects.putSync(p.name, { ...p, owners: without(p.owners), maintainers: without(p.maintainers) });
      return true;
    });
  }

  getTokenByHash(hash: string): TokenRecord | undefined {
    return this.tokens.get(hash);
  }

  listTokens(user?: string): TokenRecord[] {
    return Array.from(this.tokens.getRange(), ({ value }) => value).filter((t) => !user || t.user === user);
  }

  putToken(token: TokenRecord): void {
    this.transaction(() => this.tokens.putSync(token.hash, token));
  }

  removeToken(id: string): boolean {
    return this.transaction(() => {
      for (const { key, value } of this.tokens.getRange()) {
        if (value.id === id) {
          this.tokens.removeSync(key);
          return true;
        }
      }
      return false;
    });
  }

  // Names an administrator allowed to be created privately although they exist upstream (docs/uploads.md).

  isNameAllowed(name: string): boolean {
    return this.allowedNames.get(name) !== undefined;
  }

  allowName(name: string, by: string | null): void {
    this.transaction(() => this.allowedNames.putSync(name, { by, at: new Date().toISOString() }));
  }
}
