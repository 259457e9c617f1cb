/**
 * The private index in LMDB. Every change is one synchronous transaction that also bumps the serial and
 * appends a changelog entry, so a crash leaves either all of a change or none of it.
 */
import type { RootDatabase } from 'lmdb';
import type { IndexImport, IndexSnapshot, IndexStore, PublishInput, PublishResult } from '../index-store.js';
import type { EndedSession, FileRecord, TokenRecord, UserRecord } from '../records.js';
import { IndexDatabases } from './index-databases.js';
import { isSameFile } from '../same-file.js';

export class LmdbIndexStore extends IndexDatabases implements IndexStore {
  /** The same databases without the transactions of this class's writes: the target of `importRecords`. */
  private readonly importTarget: IndexDatabases;

  constructor(root: RootDatabase) {
    super(root);
    this.importTarget = new IndexDatabases(root);
  }

  async catchUp(): Promise<void> {}

  private transaction<T>(fn: () => T): T {
    return this.root.transactionSync(fn);
  }

  readSnapshot<T>(fn: (snapshot: IndexSnapshot) => T): T {
    const transaction = this.root.useReadTransaction();
    try {
      return fn(this.snapshotOf(transaction));
    } finally {
      transaction.done();
    }
  }

  async importRecords<T>(fn: (target: IndexImport) => T): Promise<T> {
    return this.transaction(() => fn(this.importTarget));
  }

  async publishFile(input: PublishInput): Promise<PublishResult> {
    return this.transaction((): PublishResult => {
      const { project, release, file, user } = input;
      const existing = this.files.get([project.name, file.filename]);
      if (existing) {
        return isSameFile(existing, file)
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

  async setYanked(project: string, version: string, yanked: boolean, reason: string | null, user: string | null): Promise<number | null> {
    return this.transaction(() => {
      const release = this.releases.get([project, version]);
      if (!release) return null;
      this.releases.putSync([project, version], { ...release, yanked, yankedReason: yanked ? reason || null : null });
      return this.recordChange(project, yanked ? 'yank release' : 'unyank release', user, version);
    });
  }

  async remove(project: string, version: string | null, filename: string | null, user: string | null): Promise<FileRecord[] | null> {
    return this.transaction(() => {
      if (!this.projects.get(project)) return null;
      const files = this.getFiles(project).filter((f) => (version === null || f.version === version) && (filename === null || f.filename === filename));
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

  async addMaintainer(project: string, user: string, by: string | null): Promise<boolean> {
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

  override async putUser(user: UserRecord): Promise<void> {
    this.transaction(() => super.putUser(user));
  }

  async removeUser(name: string): Promise<boolean> {
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

  override async putToken(token: TokenRecord): Promise<void> {
    this.transaction(() => super.putToken(token));
  }

  async removeToken(id: string): Promise<boolean> {
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

  async allowName(name: string, by: string | null): Promise<void> {
    this.transaction(() => this.putAllowedName({ name, by, at: new Date().toISOString() }));
  }

  async endSession(session: EndedSession, now: number): Promise<void> {
    this.transaction(() => {
      for (const { key, value } of this.endedSessions.getRange()) if (value <= now) this.endedSessions.removeSync(key);
      this.endedSessions.putSync(session.id, session.until);
    });
  }
}
