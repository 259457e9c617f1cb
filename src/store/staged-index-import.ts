/**
 * The target of an import whose function awaits: its writes are staged in memory (serials and changelog
 * entries as a store makes them), its reads answer the staged records on top of the store's, and
 * `replayInto` then makes the same writes, in order, inside the store's one transaction.
 */
import type { IndexImport, IndexImportWrites, IndexReads } from './index-store.js';
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
} from './records.js';

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The records of `base` with those of `staged` over them (same key: staged wins), in key order. */
function overlay<V>(base: V[], staged: Map<string, V> | undefined, key: (value: V) => string): V[] {
  if (!staged || staged.size === 0) return base;
  const merged = new Map(base.map((value) => [key(value), value]));
  for (const [k, value] of staged) merged.set(k, value);
  return [...merged.entries()].sort(([a], [b]) => byKey(a, b)).map(([, value]) => value);
}

function inner<V>(map: Map<string, Map<string, V>>, outer: string): Map<string, V> {
  let found = map.get(outer);
  if (!found) {
    found = new Map();
    map.set(outer, found);
  }
  return found;
}

export class StagedIndexImport implements IndexImport {
  private readonly writes: ((target: IndexImportWrites) => void)[] = [];
  private readonly projects = new Map<string, ProjectRecord>();
  /** Project → the serial of its last staged change. */
  private readonly serials = new Map<string, number>();
  private readonly releases = new Map<string, Map<string, ReleaseRecord>>();
  private readonly files = new Map<string, Map<string, FileRecord>>();
  private readonly deleted = new Map<string, Map<string, string>>();
  private readonly users = new Map<string, UserRecord>();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly allowed = new Set<string>();
  private readonly changes: ChangelogEntry[] = [];

  private constructor(
    private readonly base: IndexReads,
    private serial: number,
    private readonly now: () => Date,
  ) {}

  /** An empty stage over what `base` holds now. */
  static async over(base: IndexReads, now: () => Date = () => new Date()): Promise<StagedIndexImport> {
    return new StagedIndexImport(base, await base.lastSerial(), now);
  }

  /** Makes the staged writes, in the order made (inside the caller's transaction). */
  replayInto(target: IndexImportWrites): void {
    for (const write of this.writes) write(target);
  }

  private recordChange(project: string, action: ChangeAction, version: string | null = null, filename: string | null = null): void {
    this.serial += 1;
    this.changes.push({ serial: this.serial, project, version, filename, action, user: null, time: this.now().toISOString() });
    this.serials.set(project, this.serial);
  }

  private withSerial(record: ProjectRecord): ProjectRecord {
    const serial = this.serials.get(record.name);
    return serial === undefined ? record : { ...record, serial };
  }

  addProject(record: ProjectRecord): void {
    this.projects.set(record.name, { ...record, serial: 0 });
    this.writes.push((target) => target.addProject(record));
    this.recordChange(record.name, 'create project');
  }

  addRelease(record: ReleaseRecord): void {
    inner(this.releases, record.project).set(record.version, record);
    this.writes.push((target) => target.addRelease(record));
  }

  addFile(record: FileRecord): void {
    inner(this.files, record.project).set(record.filename, record);
    this.writes.push((target) => target.addFile(record));
    this.recordChange(record.project, 'add file', record.version, record.filename);
  }

  reserveFilename(record: DeletedFilename): void {
    inner(this.deleted, record.project).set(record.filename, record.deletedAt);
    this.writes.push((target) => target.reserveFilename(record));
  }

  putAllowedName(record: AllowedName): void {
    this.allowed.add(record.name);
    this.writes.push((target) => target.putAllowedName(record));
  }

  putUser(user: UserRecord): void {
    this.users.set(user.name, user);
    this.writes.push((target) => target.putUser(user));
  }

  putToken(token: TokenRecord): void {
    this.tokens.set(token.hash, token);
    this.writes.push((target) => target.putToken(token));
  }

  async lastSerial(): Promise<number> {
    return this.serial;
  }

  async getProject(name: string): Promise<ProjectRecord | undefined> {
    const record = this.projects.get(name) ?? (await this.base.getProject(name));
    return record && this.withSerial(record);
  }

  async *listProjects(): AsyncIterable<ProjectRecord> {
    const staged = [...this.projects.keys()].sort(byKey);
    let next = 0;
    for await (const record of this.base.listProjects()) {
      while (next < staged.length && byKey(staged[next]!, record.name) <= 0) yield this.withSerial(this.projects.get(staged[next++]!)!);
      if (!this.projects.has(record.name)) yield this.withSerial(record);
    }
    while (next < staged.length) yield this.withSerial(this.projects.get(staged[next++]!)!);
  }

  async projectCount(): Promise<number> {
    let count = await this.base.projectCount();
    for (const name of this.projects.keys()) if (!(await this.base.getProject(name))) count += 1;
    return count;
  }

  async getReleases(project: string): Promise<ReleaseRecord[]> {
    return overlay(await this.base.getReleases(project), this.releases.get(project), (r) => r.version);
  }

  async getRelease(project: string, version: string): Promise<ReleaseRecord | undefined> {
    return this.releases.get(project)?.get(version) ?? (await this.base.getRelease(project, version));
  }

  async getFiles(project: string): Promise<FileRecord[]> {
    return overlay(await this.base.getFiles(project), this.files.get(project), (f) => f.filename);
  }

  async getFile(project: string, filename: string): Promise<FileRecord | undefined> {
    return this.files.get(project)?.get(filename) ?? (await this.base.getFile(project, filename));
  }

  async isFilenameDeleted(project: string, filename: string): Promise<boolean> {
    return this.deleted.get(project)?.has(filename) || (await this.base.isFilenameDeleted(project, filename));
  }

  async *allFiles(): AsyncIterable<FileRecord> {
    const replaced = new Set<FileRecord>();
    for await (const file of this.base.allFiles()) {
      const staged = this.files.get(file.project)?.get(file.filename);
      if (staged) replaced.add(staged);
      yield staged ?? file;
    }
    for (const byName of this.files.values()) for (const file of byName.values()) if (!replaced.has(file)) yield file;
  }

  async changesSince(serial: number): Promise<ChangelogEntry[]> {
    return [...(await this.base.changesSince(serial)), ...this.changes.filter((change) => change.serial > serial)];
  }

  async getUser(name: string): Promise<UserRecord | undefined> {
    return this.users.get(name) ?? (await this.base.getUser(name));
  }

  async listUsers(): Promise<UserRecord[]> {
    return overlay(await this.base.listUsers(), this.users, (u) => u.name);
  }

  async getTokenByHash(hash: string): Promise<TokenRecord | undefined> {
    return this.tokens.get(hash) ?? (await this.base.getTokenByHash(hash));
  }

  async listTokens(user?: string): Promise<TokenRecord[]> {
    return overlay(await this.base.listTokens(), this.tokens, (t) => t.hash).filter((t) => !user || t.user === user);
  }

  async isNameAllowed(name: string): Promise<boolean> {
    return this.allowed.has(name) || (await this.base.isNameAllowed(name));
  }

  isSessionEnded(id: string): Promise<boolean> {
    return this.base.isSessionEnded(id);
  }
}
