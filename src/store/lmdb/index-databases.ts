/**
 * The private index's LMDB databases and their keys: projects by name, releases by [project, version],
 * files and removed file names by [project, filename], users by name, tokens by hash, allowed names by
 * name, logged-out web sessions by id (→ when they end), the changelog by serial and the serial under
 * 'serial' in counters. Synchronous reads, and the single-record writes that must run inside a write
 * transaction (`LmdbIndexStore` opens them and answers the async reads from these).
 */
import type { Database, RootDatabase } from 'lmdb';
import type { IndexImportWrites, IndexSnapshot } from '../index-store.js';
import type {
  AllowedName,
  ChangeAction,
  ChangelogEntry,
  DeletedFilename,
  FileRecord,
  ProjectRecord,
  ReleaseRecord,
  TokenRecord,
  UserRecord,
} from '../records.js';
import { after, type Key } from './environment.js';

const SERIAL_KEY = 'serial';

type ReadTransaction = ReturnType<RootDatabase['useReadTransaction']>;

export class IndexDatabases implements IndexImportWrites {
  readonly projects: Database<ProjectRecord, string>;
  readonly releases: Database<ReleaseRecord, Key>;
  readonly files: Database<FileRecord, Key>;
  /** [project, filename] → when it was removed. */
  readonly deleted: Database<string, Key>;
  readonly users: Database<UserRecord, string>;
  readonly tokens: Database<TokenRecord, string>;
  readonly changelog: Database<ChangelogEntry, number>;
  readonly counters: Database<number, string>;
  readonly allowedNames: Database<{ by: string | null; at: string }, string>;
  /** Session id → when the session ends (ms). */
  readonly endedSessions: Database<number, string>;

  constructor(readonly root: RootDatabase) {
    this.projects = root.openDB({ name: 'projects' });
    this.releases = root.openDB({ name: 'releases' });
    this.files = root.openDB({ name: 'files' });
    this.deleted = root.openDB({ name: 'deleted-files' });
    this.users = root.openDB({ name: 'users' });
    this.tokens = root.openDB({ name: 'tokens' });
    this.changelog = root.openDB({ name: 'changelog' });
    this.counters = root.openDB({ name: 'counters' });
    this.allowedNames = root.openDB({ name: 'allowed-names' });
    this.endedSessions = root.openDB({ name: 'ended-sessions' });
  }

  lastSerial(): number {
    return this.counters.get(SERIAL_KEY) ?? 0;
  }

  /** Inside a transaction: takes the next serial and records what changed under it. */
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

  isFilenameDeleted(project: string, filename: string): boolean {
    return this.deleted.get([project, filename]) !== undefined;
  }

  *allFiles(): Iterable<FileRecord> {
    for (const { value } of this.files.getRange()) yield value;
  }

  changesSince(serial: number): ChangelogEntry[] {
    return Array.from(this.changelog.getRange({ start: serial + 1 }), ({ value }) => value);
  }

  getUser(name: string): UserRecord | undefined {
    return this.users.get(name);
  }

  listUsers(): UserRecord[] {
    return Array.from(this.users.getRange(), ({ value }) => value);
  }

  getTokenByHash(hash: string): TokenRecord | undefined {
    return this.tokens.get(hash);
  }

  listTokens(user?: string): TokenRecord[] {
    return Array.from(this.tokens.getRange(), ({ value }) => value).filter((t) => !user || t.user === user);
  }

  isNameAllowed(name: string): boolean {
    return this.allowedNames.get(name) !== undefined;
  }

  isSessionEnded(id: string): boolean {
    return this.endedSessions.get(id) !== undefined;
  }

  // Single-record writes: only inside a write transaction.

  addProject(record: ProjectRecord): void {
    this.projects.putSync(record.name, { ...record, serial: 0 });
    this.recordChange(record.name, 'create project', null);
  }

  addRelease(record: ReleaseRecord): void {
    this.releases.putSync([record.project, record.version], record);
  }

  addFile(record: FileRecord): void {
    this.files.putSync([record.project, record.filename], record);
    this.recordChange(record.project, 'add file', null, record.version, record.filename);
  }

  reserveFilename(record: DeletedFilename): void {
    this.deleted.putSync([record.project, record.filename], record.deletedAt);
  }

  putAllowedName(record: AllowedName): void {
    this.allowedNames.putSync(record.name, { by: record.by, at: record.at });
  }

  putUser(user: UserRecord): void {
    this.users.putSync(user.name, user);
  }

  putToken(token: TokenRecord): void {
    this.tokens.putSync(token.hash, token);
  }

  /** Every record as seen by `transaction`. */
  snapshotOf(transaction: ReadTransaction): IndexSnapshot {
    const values = async function* <V>(db: Database<V, Key>): AsyncIterable<V> {
      for (const { value } of db.getRange({ transaction })) yield value;
    };
    const { deleted, allowedNames } = this;
    return {
      projects: () => values(this.projects),
      releases: () => values(this.releases),
      files: () => values(this.files),
      users: () => values(this.users),
      tokens: () => values(this.tokens),
      changelog: () => values(this.changelog),
      async *deletedFilenames() {
        for (const { key, value } of deleted.getRange({ transaction })) {
          const [project, filename] = key as [string, string];
          yield { project, filename, deletedAt: value };
        }
      },
      async *allowedNames() {
        for (const { key, value } of allowedNames.getRange({ transaction })) yield { name: key, by: value.by, at: value.at };
      },
    };
  }
}
