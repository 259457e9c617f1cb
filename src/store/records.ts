/** The records larder keeps (private index, upstream cache). Plain data: what is written is what is read back. */

export interface ProjectRecord {
  /** Normalized name (the key). */
  name: string;
  displayName: string;
  createdAt: string;
  serial: number;
  /**
   * The upstream's serial for this name when the private project was created over it (an administrator's
   * allow-name permits that); added to larder's serial so the project's serial never goes down for a client that saw the
   * upstream project before.
   */
  serialBase?: number;
  owners: string[];
  maintainers: string[];
  /** The project's PEP 792 status; absent = active. */
  status?: StoredProjectStatus;
  /** Why the project has its status (PEP 792 `reason`); absent = none given. */
  statusReason?: string;
}

/** PEP 792 project statuses; `active` is the default and is stored as no status. */
export const PROJECT_STATUS_NAMES = ['active', 'archived', 'quarantined', 'deprecated'] as const;
export type ProjectStatusName = (typeof PROJECT_STATUS_NAMES)[number];
export type StoredProjectStatus = Exclude<ProjectStatusName, 'active'>;

export interface ReleaseRecord {
  project: string;
  version: string;
  /** Core metadata of the release's first upload (as the JSON API `info` names it). */
  metadata: Record<string, unknown>;
  createdAt: string;
  yanked: boolean;
  yankedReason: string | null;
}

export interface FileRecord {
  project: string;
  version: string;
  filename: string;
  packagetype: string;
  pyversion: string;
  size: number;
  sha256: string;
  md5: string;
  blake2b_256: string;
  uploadTime: string;
  requiresPython: string | null;
  comment: string | null;
  /** sha256 of the extracted `.metadata` blob (wheels), null when none. */
  metadataSha256: string | null;
  /** sha256 of the `.asc` signature blob, null when none. */
  signatureSha256: string | null;
  uploader: string | null;
  /** Set when the file was uploaded with a token minted by trusted publishing: who published it. */
  publisher?: PublisherStamp;
}

/** The trusted publisher an upload came from: the matched publishers' ids, the issuer and the identifying claims. */
export interface PublisherStamp {
  ids: string[];
  issuer: string;
  /** The token's identifying claims (repository, workflow_ref, project_path, ref, …): strings only. */
  claims: Record<string, string>;
}

export interface UserRecord {
  name: string;
  passwordHash: string;
  admin: boolean;
  createdAt: string;
}

export interface TokenRecord {
  /** Short public id: the first 12 hex digits of the token's hash. */
  id: string;
  /** sha256 hex of the whole token; the token itself is never stored. */
  hash: string;
  user: string;
  /** Normalized project names the token is limited to; null = every project the user may upload to. */
  projects: string[] | null;
  description: string | null;
  createdAt: string;
  /** When the token stops working (ISO time); absent = never. */
  expiresAt?: string;
}

/** A web session logged out before its end: its id is refused until `until` (ms), when the session would end anyway. */
export interface EndedSession {
  id: string;
  until: number;
}

export type ChangeAction =
  | 'create project'
  | 'add file'
  | 'yank release'
  | 'unyank release'
  | 'remove file'
  | 'remove release'
  | 'remove project'
  | 'add maintainer'
  | 'set project status';

export interface ChangelogEntry {
  serial: number;
  project: string;
  version: string | null;
  filename: string | null;
  action: ChangeAction;
  user: string | null;
  time: string;
}

/** A file name removed from a project: it stays reserved, never reused. */
export interface DeletedFilename {
  project: string;
  filename: string;
  deletedAt: string;
}

/** A name an administrator allowed to be created privately although it exists upstream (docs/uploads.md). */
export interface AllowedName {
  name: string;
  by: string | null;
  at: string;
}

/** What an upstream sent to revalidate a cached answer with (If-None-Match, If-Modified-Since). */
export interface Validators {
  etag?: string;
  lastModified?: string;
}

/** A cached upstream page or JSON document (`value` null = the upstream said 404). */
export interface CachedDocument<T> {
  value: T | null;
  fetchedAt: number;
  validators: Validators;
}

/** The state of the stored upstream project list (the list itself is a file beside the store). */
export interface RootListRecord {
  fetchedAt: number;
  /** When the list's content was last written (a refresh answered 304 keeps it); absent in records of older larders. */
  writtenAt?: number;
  validators: Validators;
  serial: number;
  count: number;
}

/** A verified upstream file (or its `.metadata` / `.asc`) in the blob store. */
export interface CachedFileRecord {
  sha256: string;
  size: number;
  fetchedAt: number;
  lastAccess: number;
}
