/**
 * The target of `PgIndexStore.importRecords`: a copy of the caught-up view that takes the import's writes
 * (so the import's reads see them, with serials and changelog entries as the LMDB store makes them), then
 * writes what changed to the database inside the import's transaction.
 */
import type { IndexImport } from '../index-store.js';
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
import type { Queryable } from './database.js';
import * as write from './index-sql.js';
import { emptyPart, type IndexState, IndexView, type ProjectPart } from './index-view.js';

export class StagedImport extends IndexView implements IndexImport {
  private readonly projects = new Set<string>();
  private readonly releases: ReleaseRecord[] = [];
  private readonly files: FileRecord[] = [];
  private readonly deleted: DeletedFilename[] = [];
  private readonly users: UserRecord[] = [];
  private readonly tokens: TokenRecord[] = [];
  private readonly allowed: AllowedName[] = [];
  private readonly changes: ChangelogEntry[] = [];

  constructor(
    state: IndexState,
    private readonly now: () => Date,
  ) {
    super(state);
  }

  private part(name: string): ProjectPart {
    const found = this.state.projects.get(name);
    if (found) return found;
    const part = emptyPart();
    this.state.projects.set(name, part);
    this.invalidateNames();
    return part;
  }

  private recordChange(project: string, action: ChangeAction, version: string | null = null, filename: string | null = null): void {
    const serial = this.state.serial + 1;
    const change: ChangelogEntry = { serial, project, version, filename, action, user: null, time: this.now().toISOString() };
    this.state.serial = serial;
    this.state.changelog.push(change);
    this.changes.push(change);
    const part = this.part(project);
    if (part.record) {
      part.record = { ...part.record, serial };
      this.projects.add(project);
    }
  }

  addProject(record: ProjectRecord): void {
    this.part(record.name).record = { ...record, serial: 0 };
    this.projects.add(record.name);
    this.recordChange(record.name, 'create project');
  }

  addRelease(record: ReleaseRecord): void {
    this.part(record.project).releases.set(record.version, record);
    this.releases.push(record);
  }

  addFile(record: FileRecord): void {
    this.part(record.project).files.set(record.filename, record);
    this.files.push(record);
    this.recordChange(record.project, 'add file', record.version, record.filename);
  }

  reserveFilename(record: DeletedFilename): void {
    this.part(record.project).deleted.set(record.filename, record.deletedAt);
    this.deleted.push(record);
  }

  putAllowedName(record: AllowedName): void {
    this.state.allowed.set(record.name, record);
    this.allowed.push(record);
  }

  putUser(user: UserRecord): void {
    this.state.users.set(user.name, user);
    this.users.push(user);
  }

  putToken(token: TokenRecord): void {
    this.state.tokens.set(token.hash, token);
    this.tokens.push(token);
  }

  /** Writes the import's records (in the order made; a later write of a key wins); returns the scopes changed. */
  async writeTo(tx: Queryable): Promise<string[]> {
    const scopes = new Set<string>();
    for (const name of this.projects) {
      const record = this.state.projects.get(name)?.record;
      if (record) await write.putProject(tx, record);
    }
    for (const r of this.releases) await write.putRelease(tx, r);
    for (const f of this.files) await write.putFile(tx, f);
    for (const d of this.deleted) await write.reserveFilename(tx, d.project, d.filename, d.deletedAt);
    for (const u of this.users) await write.putUser(tx, u);
    for (const t of this.tokens) await write.putToken(tx, t);
    for (const a of this.allowed) await write.putAllowedName(tx, a);
    for (const c of this.changes) {
      await tx.query('INSERT INTO changelog (serial, project, version, filename, action, user_name, time) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        c.serial,
        c.project,
        c.version,
        c.filename,
        c.action,
        c.user,
        c.time,
      ]);
    }
    if (this.changes.length > 0) await tx.query("UPDATE counters SET value = $1 WHERE name = 'serial'", [this.state.serial]);
    for (const p of [...this.projects, ...this.releases.map((r) => r.project), ...this.files.map((f) => f.project), ...this.deleted.map((d) => d.project)]) {
      scopes.add(`project:${p}`);
    }
    for (const u of this.users) scopes.add(`user:${u.name}`);
    for (const t of this.tokens) scopes.add(`token:${t.hash}`);
    for (const a of this.allowed) scopes.add(`allowed:${a.name}`);
    return [...scopes];
  }
}
