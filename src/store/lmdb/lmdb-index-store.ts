/**
 * The private index in LMDB. Every change is one synchronous transaction that also bumps the serial and
 * appends a changelog entry, so a crash leaves either all of a change or none of it. The async reads
 * answer from the synchronous ones.
 */
import type { RootDatabase } from 'lmdb';
import type { IndexImport, IndexSnapshot, IndexStore, PublishInput, PublishResult } from '../index-store.js';
import type { ChangelogEntry, EndedSession, FileRecord, ProjectRecord, ProjectStatusName, ReleaseRecord, TokenRecord, UserRecord } from '../records.js';
import { withStatus } from '../project-status.js';
import { IndexDatabases } from './index-databases.js';
import { isSameFile } from '../same-file.js';
import { StagedIndexImport } from '../staged-index-import.js';

const IMPORT_ATTEMPTS = 5;

export class LmdbIndexStore implements IndexStore {
  private readonly db: IndexDatabases;

  constructor(private readonly root: RootDatabase) {
    this.db = new IndexDatabases(root);
  }

  async catchUp(): Promise<void> {}

  private transaction<T>(fn: () => T): T {
    return this.root.transactionSync(fn);
  }

  async readSnapshot<T>(fn: (snapshot: IndexSnapshot) => Promise<T>): Promise<T> {
    const transaction = this.root.useReadTransaction();
    try {
      return await fn(this.db.snapshotOf(transaction));
    } finally {
      transaction.done();
    }
  }

  /** Staged while reading, replayed in one transaction; staged again when another writer changed the index meanwhile. */
  async importRecords<T>(fn: (target: IndexImport) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const before = this.db.lastSerial();
      const staged = await StagedIndexImport.over(this);
      const result = await fn(staged);
      const replayed = this.transaction(() => {
        if (this.db.lastSerial() !== before) return false;
        staged.replayInto(this.db);
        return true;
      });
      if (replayed) return result;
      if (attempt === IMPORT_ATTEMPTS) throw new Error(`the index changed during the import ${IMPORT_ATTEMPTS} times; run it again when uploads are quieter`);
    }
  }

  async lastSerial(): Promise<number> {
    return this.db.lastSerial();
  }

  async getProject(name: string): Promise<ProjectRecord | undefined> {
    return this.db.getProject(name);
  }

  async *listProjects(): AsyncIterable<ProjectRecord> {
    yield* this.db.listProjects();
  }

  async projectCount(): Promise<number> {
    return this.db.projectCount();
  }

  async getReleases(project: string): Promise<ReleaseRecord[]> {
    return this.db.getReleases(project);
  }

  async getRelease(project: string, version: string): Promise<ReleaseRecord | undefined> {
    return this.db.getRelease(project, version);
  }

  async getFiles(project: string): Promise<FileRecord[]> {
    return this.db.getFiles(project);
  }

  async getFile(project: string, filename: string): Promise<FileRecord | undefined> {
    return this.db.getFile(project, filename);
  }

  async isFilenameDeleted(project: string, filename: string): Promise<boolean> {
    return this.db.isFilenameDeleted(project, filename);
  }

  async *allFiles(): AsyncIterable<FileRecord> {
    yield* this.db.allFiles();
  }

  async changesSince(serial: number): Promise<ChangelogEntry[]> {
    return this.db.changesSince(serial);
  }

  async getUser(name: string): Promise<UserRecord | undefined> {
    return this.db.getUser(name);
  }

  async listUsers(): Promise<UserRecord[]> {
    return this.db.listUsers();
  }

  async getTokenByHash(hash: string): Promise<TokenRecord | undefined> {
    return this.db.getTokenByHash(hash);
  }

  async listTokens(user?: string): Promise<TokenRecord[]> {
    return this.db.listTokens(user);
  }

  async isNameAllowed(name: string): Promise<boolean> {
    return this.db.isNameAllowed(name);
  }

  async isSessionEnded(id: string): Promise<boolean> {
    return this.db.isSessionEnded(id);
  }

  async publishFile(input: PublishInput): Promise<PublishResult> {
    return this.transaction((): PublishResult => {
      const { project, release, file, user } = input;
      const existing = this.db.files.get([project.name, file.filename]);
      if (existing) {
        return isSameFile(existing, file)
          ? { outcome: 'identical', serial: this.db.projects.get(project.name)?.serial ?? this.db.lastSerial() }
          : { outcome: 'conflict', existing };
      }
      if (this.db.deleted.get([project.name, file.filename]) !== undefined) return { outcome: 'reused-filename' };
      const now = file.uploadTime;
      const newProject = !this.db.projects.get(project.name);
      if (newProject) {
        this.db.projects.putSync(project.name, {
          name: project.name,
          displayName: project.displayName,
          createdAt: now,
          serial: 0,
          ...(project.serialBase ? { serialBase: project.serialBase } : {}),
          owners: user ? [user] : [],
          maintainers: [],
        });
        this.db.recordChange(project.name, 'create project', user);
      } else {
        const record = this.db.projects.get(project.name)!;
        if (record.displayName !== project.displayName) this.db.projects.putSync(project.name, { ...record, displayName: project.displayName });
      }
      if (!this.db.releases.get([project.name, release.version])) {
        this.db.releases.putSync([project.name, release.version], {
          project: project.name,
          version: release.version,
          metadata: release.metadata,
          createdAt: now,
          yanked: false,
          yankedReason: null,
        });
      }
      this.db.files.putSync([project.name, file.filename], file);
      const serial = this.db.recordChange(project.name, 'add file', user, release.version, file.filename);
      return { outcome: 'created', serial, newProject };
    });
  }

  async setYanked(project: string, version: string, yanked: boolean, reason: string | null, user: string | null): Promise<number | null> {
    return this.transaction(() => {
      const release = this.db.releases.get([project, version]);
      if (!release) return null;
      this.db.releases.putSync([project, version], { ...release, yanked, yankedReason: yanked ? reason || null : null });
      return this.db.recordChange(project, yanked ? 'yank release' : 'unyank release', user, version);
    });
  }

  async remove(project: string, version: string | null, filename: string | null, user: string | null): Promise<FileRecord[] | null> {
    return this.transaction(() => {
      if (!this.db.projects.get(project)) return null;
      const files = this.db.getFiles(project).filter((f) => (version === null || f.version === version) && (filename === null || f.filename === filename));
      const releases = version === null ? this.db.getReleases(project) : this.db.getReleases(project).filter((r) => r.version === version);
      if (filename !== null && files.length === 0) return null;
      if (version !== null && releases.length === 0) return null;
      const now = new Date().toISOString();
      for (const f of files) {
        this.db.files.removeSync([project, f.filename]);
        this.db.deleted.putSync([project, f.filename], now);
      }
      if (filename === null) {
        for (const r of releases) this.db.releases.removeSync([project, r.version]);
      }
      if (version === null && filename === null) {
        this.db.recordChange(project, 'remove project', user);
        this.db.projects.removeSync(project);
      } else {
        this.db.recordChange(project, filename === null ? 'remove release' : 'remove file', user, version, filename);
      }
      return files;
    });
  }

  async addMaintainer(project: string, user: string, by: string | null): Promise<boolean> {
    return this.transaction(() => {
      const record = this.db.projects.get(project);
      if (!record) return false;
      if (!record.maintainers.includes(user) && !record.owners.includes(user)) {
        this.db.projects.putSync(project, { ...record, maintainers: [...record.maintainers, user] });
        this.db.recordChange(project, 'add maintainer', by);
      }
      return true;
    });
  }

  async setProjectStatus(project: string, status: ProjectStatusName, reason: string | null, by: string | null): Promise<number | null> {
    return this.transaction(() => {
      const record = this.db.projects.get(project);
      if (!record) return null;
      this.db.projects.putSync(project, withStatus(record, status, reason));
      return this.db.recordChange(project, 'set project status', by);
    });
  }

  async putUser(user: UserRecord): Promise<void> {
    this.transaction(() => this.db.putUser(user));
  }

  async removeUser(name: string): Promise<boolean> {
    return this.transaction(() => {
      if (!this.db.users.get(name)) return false;
      this.db.users.removeSync(name);
      for (const { key, value } of this.db.tokens.getRange()) if (value.user === name) this.db.tokens.removeSync(key);
      const without = (users: string[]) => users.filter((user) => user !== name);
      const roles = Array.from(this.db.projects.getRange(), ({ value }) => value).filter((p) => p.owners.includes(name) || p.maintainers.includes(name));
      for (const p of roles) this.db.projects.putSync(p.name, { ...p, owners: without(p.owners), maintainers: without(p.maintainers) });
      return true;
    });
  }

  async putToken(token: TokenRecord): Promise<void> {
    this.transaction(() => this.db.putToken(token));
  }

  async removeToken(id: string): Promise<boolean> {
    return this.transaction(() => {
      for (const { key, value } of this.db.tokens.getRange()) {
        if (value.id === id) {
          this.db.tokens.removeSync(key);
          return true;
        }
      }
      return false;
    });
  }

  async allowName(name: string, by: string | null): Promise<void> {
    this.transaction(() => this.db.putAllowedName({ name, by, at: new Date().toISOString() }));
  }

  async endSession(session: EndedSession, now: number): Promise<void> {
    this.transaction(() => {
      for (const { key, value } of this.db.endedSessions.getRange()) if (value <= now) this.db.endedSessions.removeSync(key);
      this.db.endedSessions.putSync(session.id, session.until);
    });
  }
}
