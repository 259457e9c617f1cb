/**
 * The private index: projects, releases, files, removed (reserved) file names, users, tokens, roles (inside
 * project records), allowed names, logged-out web sessions, the global serial and the changelog. Every
 * change is one transaction that also takes the next serial and appends a changelog entry, so a crash
 * leaves all of a change or none. Reads are async (a shared database answers them over the network);
 * writes resolve once durable.
 */
import type {
  AllowedName,
  ChangelogEntry,
  DeletedFilename,
  EndedSession,
  FileRecord,
  ProjectRecord,
  ProjectStatusName,
  ReleaseRecord,
  TokenRecord,
  UserRecord,
} from './records.js';

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

/** Point reads and listings. */
export interface IndexReads {
  lastSerial(): Promise<number>;
  getProject(name: string): Promise<ProjectRecord | undefined>;
  /** Every project in name order, streamed (a shared database pages through them; never loads all at once). */
  listProjects(): AsyncIterable<ProjectRecord>;
  projectCount(): Promise<number>;
  getReleases(project: string): Promise<ReleaseRecord[]>;
  getRelease(project: string, version: string): Promise<ReleaseRecord | undefined>;
  getFiles(project: string): Promise<FileRecord[]>;
  getFile(project: string, filename: string): Promise<FileRecord | undefined>;
  /** Was a file of this name removed from the project? Removed file names stay reserved. */
  isFilenameDeleted(project: string, filename: string): Promise<boolean>;
  /** Every file of every project, streamed, for statistics and garbage collection. */
  allFiles(): AsyncIterable<FileRecord>;
  changesSince(serial: number): Promise<ChangelogEntry[]>;
  getUser(name: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<UserRecord[]>;
  getTokenByHash(hash: string): Promise<TokenRecord | undefined>;
  /** Every token, or those of `user`. */
  listTokens(user?: string): Promise<TokenRecord[]>;
  isNameAllowed(name: string): Promise<boolean>;
  /** Was the web session of this id logged out (on any node)? */
  isSessionEnded(id: string): Promise<boolean>;
}

/** Every record of one consistent snapshot (for `larder export`); blocks no writer. */
export interface IndexSnapshot {
  projects(): AsyncIterable<ProjectRecord>;
  releases(): AsyncIterable<ReleaseRecord>;
  files(): AsyncIterable<FileRecord>;
  deletedFilenames(): AsyncIterable<DeletedFilename>;
  allowedNames(): AsyncIterable<AllowedName>;
  users(): AsyncIterable<UserRecord>;
  tokens(): AsyncIterable<TokenRecord>;
  changelog(): AsyncIterable<ChangelogEntry>;
}

/** The writes of an import: staged, applied in one transaction once the import's function resolves. */
export interface IndexImportWrites {
  /** Adds a project (serial reset to larder's own) under a new 'create project' change. */
  addProject(record: ProjectRecord): void;
  addRelease(record: ReleaseRecord): void;
  /** Adds a file under a new 'add file' change. */
  addFile(record: FileRecord): void;
  reserveFilename(record: DeletedFilename): void;
  putAllowedName(record: AllowedName): void;
  putUser(user: UserRecord): void;
  putToken(token: TokenRecord): void;
}

/** Inside one import: the reads see the writes staged so far. */
export interface IndexImport extends IndexReads, IndexImportWrites {}

export interface IndexStore extends IndexReads {
  /**
   * Records an uploaded file whose blob is already durable. Creates the project and release when new.
   * Same filename + same hashes → identical (nothing written); same filename, other bytes, or a
   * filename once removed → refused.
   */
  publishFile(input: PublishInput): Promise<PublishResult>;
  /** The change's serial, or null when there is no such release. */
  setYanked(project: string, version: string, yanked: boolean, reason: string | null, user: string | null): Promise<number | null>;
  /**
   * Removes a file, a release (all its files) or a whole project. Removed filenames stay reserved.
   * Returns the removed files (their blobs may now be orphans), or null when nothing matched.
   */
  remove(project: string, version: string | null, filename: string | null, user: string | null): Promise<FileRecord[] | null>;
  /** False when there is no such project. */
  addMaintainer(project: string, user: string, by: string | null): Promise<boolean>;
  /**
   * Sets the project's PEP 792 status (`active` clears it) and reason, as a change of the project (its
   * serial moves, so every node's pages follow). The change's serial, or null when there is no such project.
   */
  setProjectStatus(project: string, status: ProjectStatusName, reason: string | null, by: string | null): Promise<number | null>;
  putUser(user: UserRecord): Promise<void>;
  /** Removes the user, their tokens and their roles in every project, so that a new user of that name inherits nothing. */
  removeUser(name: string): Promise<boolean>;
  putToken(token: TokenRecord): Promise<void>;
  removeToken(id: string): Promise<boolean>;
  allowName(name: string, by: string | null): Promise<void>;
  /** Records a logout, and forgets the logouts of sessions that ended by `now` (ms). No serial: not a change of the index. */
  endSession(session: EndedSession, now: number): Promise<void>;
  /** Runs `fn` against one consistent snapshot of every record (it stays consistent across awaits). */
  readSnapshot<T>(fn: (snapshot: IndexSnapshot) => Promise<T>): Promise<T>;
  /** Runs `fn` against staged writes, then applies them in one transaction: all of its writes or none. */
  importRecords<T>(fn: (target: IndexImport) => Promise<T>): Promise<T>;
  /**
   * Brings this node's reads up to every change committed (by any node) before the call (a store that
   * caches what it read drops what may be stale); a single-node store resolves at once.
   */
  catchUp(): Promise<void>;
}
