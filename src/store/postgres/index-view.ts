/**
 * A node's in-memory view of the private index kept in PostgreSQL: the reads of `IndexReads` and
 * snapshots, served from maps. The replica replaces whole parts of it (a project with its releases,
 * files and removed names; a user; a token; an allowed name; a logged-out session) in one synchronous
 * step, so a reader never sees half of a change. Records are frozen: they are shared by every reader.
 */
import type { IndexReads, IndexSnapshot } from '../index-store.js';
import type { AllowedName, ChangelogEntry, FileRecord, ProjectRecord, ReleaseRecord, TokenRecord, UserRecord } from '../records.js';

/** A project and what hangs under its name; `record` is undefined when only removed file names remain. */
export interface ProjectPart {
  record: ProjectRecord | undefined;
  releases: Map<string, ReleaseRecord>;
  files: Map<string, FileRecord>;
  /** Removed file name → when. */
  deleted: Map<string, string>;
}

export interface IndexState {
  projects: Map<string, ProjectPart>;
  users: Map<string, UserRecord>;
  /** By hash. */
  tokens: Map<string, TokenRecord>;
  allowed: Map<string, AllowedName>;
  /** Logged-out session id → when the session ends (ms). */
  endedSessions: Map<string, number>;
  /** Ascending by serial. */
  changelog: ChangelogEntry[];
  serial: number;
}

/** Parts to replace (undefined or an empty part = gone), changes to append, and the serial after them. */
export interface IndexUpdate {
  projects: Map<string, ProjectPart>;
  users: Map<string, UserRecord | undefined>;
  tokens: Map<string, TokenRecord | undefined>;
  allowed: Map<string, AllowedName | undefined>;
  endedSessions: Map<string, number | undefined>;
  changes: ChangelogEntry[];
  serial: number;
}

export const emptyPart = (): ProjectPart => ({ record: undefined, releases: new Map(), files: new Map(), deleted: new Map() });

export const emptyState = (): IndexState => ({
  projects: new Map(),
  users: new Map(),
  tokens: new Map(),
  allowed: new Map(),
  endedSessions: new Map(),
  changelog: [],
  serial: 0,
});

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function setOrDelete<V>(map: Map<string, V>, key: string, value: V | undefined): void {
  if (value === undefined) map.delete(key);
  else map.set(key, value);
}

export class IndexView implements IndexReads {
  /** Names of the parts, sorted; rebuilt after a change of the set of projects. */
  private sortedNames: string[] | null = null;

  constructor(protected state: IndexState = emptyState()) {}

  /** Replaces everything (a full reload). */
  replaceAll(state: IndexState): void {
    this.state = state;
    this.sortedNames = null;
  }

  apply(update: IndexUpdate): void {
    const { state } = this;
    for (const [name, part] of update.projects) {
      const empty = !part.record && part.releases.size === 0 && part.files.size === 0 && part.deleted.size === 0;
      setOrDelete(state.projects, name, empty ? undefined : part);
    }
    if (update.projects.size > 0) this.sortedNames = null;
    for (const [name, user] of update.users) setOrDelete(state.users, name, user);
    for (const [hash, token] of update.tokens) setOrDelete(state.tokens, hash, token);
    for (const [name, allowed] of update.allowed) setOrDelete(state.allowed, name, allowed);
    for (const [id, until] of update.endedSessions) setOrDelete(state.endedSessions, id, until);
    const last = state.changelog.at(-1)?.serial ?? 0;
    for (const change of update.changes) if (change.serial > last) state.changelog.push(change);
    state.serial = update.serial;
  }

  /** A copy whose changes do not reach this view (records are shared: they are never modified). */
  protected copyState(): IndexState {
    const { state } = this;
    const projects = new Map<string, ProjectPart>();
    for (const [name, p] of state.projects) {
      projects.set(name, { record: p.record, releases: new Map(p.releases), files: new Map(p.files), deleted: new Map(p.deleted) });
    }
    return {
      projects,
      users: new Map(state.users),
      tokens: new Map(state.tokens),
      allowed: new Map(state.allowed),
      endedSessions: new Map(state.endedSessions),
      changelog: [...state.changelog],
      serial: state.serial,
    };
  }

  protected names(): string[] {
    this.sortedNames ??= [...this.state.projects.keys()].sort(byKey);
    return this.sortedNames;
  }

  protected invalidateNames(): void {
    this.sortedNames = null;
  }

  async lastSerial(): Promise<number> {
    return this.state.serial;
  }

  async getProject(name: string): Promise<ProjectRecord | undefined> {
    return this.state.projects.get(name)?.record;
  }

  async *listProjects(): AsyncIterable<ProjectRecord> {
    for (const name of this.names()) {
      const record = this.state.projects.get(name)?.record;
      if (record) yield record;
    }
  }

  async projectCount(): Promise<number> {
    let count = 0;
    for (const part of this.state.projects.values()) if (part.record) count += 1;
    return count;
  }

  async getReleases(project: string): Promise<ReleaseRecord[]> {
    return [...(this.state.projects.get(project)?.releases.values() ?? [])];
  }

  async getRelease(project: string, version: string): Promise<ReleaseRecord | undefined> {
    return this.state.projects.get(project)?.releases.get(version);
  }

  async getFiles(project: string): Promise<FileRecord[]> {
    return [...(this.state.projects.get(project)?.files.values() ?? [])];
  }

  async getFile(project: string, filename: string): Promise<FileRecord | undefined> {
    return this.state.projects.get(project)?.files.get(filename);
  }

  async isFilenameDeleted(project: string, filename: string): Promise<boolean> {
    return this.state.projects.get(project)?.deleted.has(filename) ?? false;
  }

  async *allFiles(): AsyncIterable<FileRecord> {
    for (const name of this.names()) yield* this.state.projects.get(name)?.files.values() ?? [];
  }

  async changesSince(serial: number): Promise<ChangelogEntry[]> {
    const log = this.state.changelog;
    let lo = 0;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (log[mid]!.serial <= serial) lo = mid + 1;
      else hi = mid;
    }
    return log.slice(lo);
  }

  async getUser(name: string): Promise<UserRecord | undefined> {
    return this.state.users.get(name);
  }

  async listUsers(): Promise<UserRecord[]> {
    return this.sortedUsers();
  }

  private sortedUsers(): UserRecord[] {
    return [...this.state.users.values()].sort((a, b) => byKey(a.name, b.name));
  }

  async getTokenByHash(hash: string): Promise<TokenRecord | undefined> {
    return this.state.tokens.get(hash);
  }

  async listTokens(user?: string): Promise<TokenRecord[]> {
    return this.sortedTokens(user);
  }

  private sortedTokens(user?: string): TokenRecord[] {
    return [...this.state.tokens.values()].filter((t) => !user || t.user === user).sort((a, b) => byKey(a.hash, b.hash));
  }

  async isNameAllowed(name: string): Promise<boolean> {
    return this.state.allowed.has(name);
  }

  async isSessionEnded(id: string): Promise<boolean> {
    return this.state.endedSessions.has(id);
  }

  /** Every record, in key order, as the view holds them now (the view replaces parts; it never changes a record). */
  snapshot(): IndexSnapshot {
    const { state } = this;
    const allowed = [...state.allowed.values()].sort((a, b) => byKey(a.name, b.name));
    const users = this.sortedUsers();
    const tokens = this.sortedTokens();
    const changelog = [...state.changelog];
    const named = this.names().map((name) => [name, state.projects.get(name)!] as const);
    const parts = named.map(([, part]) => part);
    return {
      async *projects() {
        for (const part of parts) if (part.record) yield part.record;
      },
      async *releases() {
        for (const part of parts) yield* part.releases.values();
      },
      async *files() {
        for (const part of parts) yield* part.files.values();
      },
      async *deletedFilenames() {
        for (const [project, part] of named) {
          for (const [filename, deletedAt] of part.deleted) yield { project, filename, deletedAt };
        }
      },
      async *allowedNames() {
        yield* allowed;
      },
      async *users() {
        yield* users;
      },
      async *tokens() {
        yield* tokens;
      },
      async *changelog() {
        yield* changelog;
      },
    };
  }
}
