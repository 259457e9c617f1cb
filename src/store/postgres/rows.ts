/**
 * Every record as a row of its PostgreSQL table (migrations.ts makes the tables), and back: the one place
 * that names the columns of a record. Writes take the column names from the `*Row` objects (`upsert`);
 * reads select whole rows (`SELECT *`, or `row_to_json`, whose keys are the same names) and map them back.
 */
import type { MirrorSetRecord } from '../mirror-set-store.js';
import type { CollisionRecord, ExemptionRecord } from '../policy-store.js';
import type {
  AllowedName,
  CachedFileRecord,
  ChangeAction,
  ChangelogEntry,
  DeletedFilename,
  EndedSession,
  FileRecord,
  ProjectRecord,
  PublisherStamp,
  ReleaseRecord,
  StoredProjectStatus,
  TokenRecord,
  UserRecord,
} from '../records.js';
import type { Queryable, Row } from './database.js';

const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** A table, its key columns, and a record's row. */
export interface TableRow {
  table: string;
  key: string[];
  row: Record<string, unknown>;
}

/** INSERT, or UPDATE of every other column when a row with the same key exists. Table and column names are larder's own. */
export async function upsert(tx: Queryable, { table, key, row }: TableRow): Promise<void> {
  const columns = Object.keys(row);
  const placeholders = columns.map((_, i) => `$${i + 1}`);
  const updates = columns.filter((c) => !key.includes(c)).map((c) => `${c} = excluded.${c}`);
  const onConflict = updates.length ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING';
  await tx.query(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')}) ON CONFLICT (${key.join(', ')}) ${onConflict}`,
    Object.values(row),
  );
}

/** INSERT unless a row with the same key exists (waiting for a transaction that is inserting it); false when one did. */
export async function insertNew(tx: Queryable, { table, key, row }: TableRow): Promise<boolean> {
  const columns = Object.keys(row);
  const placeholders = columns.map((_, i) => `$${i + 1}`);
  const text = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')}) ON CONFLICT (${key.join(', ')}) DO NOTHING RETURNING 1`;
  return (await tx.query(text, Object.values(row))).rows.length > 0;
}

export function projectOf(row: Row): ProjectRecord {
  const base = row.serial_base === null || row.serial_base === undefined ? 0 : Number(row.serial_base);
  return {
    name: str(row.name),
    displayName: str(row.display_name),
    createdAt: str(row.created_at),
    serial: Number(row.serial),
    ...(base ? { serialBase: base } : {}),
    owners: row.owners as string[],
    maintainers: row.maintainers as string[],
    ...(row.status ? { status: str(row.status) as StoredProjectStatus } : {}),
    ...(row.status_reason ? { statusReason: str(row.status_reason) } : {}),
  };
}

export function projectRow(p: ProjectRecord): TableRow {
  const row = {
    name: p.name,
    display_name: p.displayName,
    created_at: p.createdAt,
    serial: p.serial,
    serial_base: p.serialBase ?? null,
    owners: p.owners,
    maintainers: p.maintainers,
    status: p.status ?? null,
    status_reason: p.statusReason ?? null,
  };
  return { table: 'projects', key: ['name'], row };
}

export function releaseOf(row: Row): ReleaseRecord {
  return {
    project: str(row.project),
    version: str(row.version),
    metadata: (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) as Record<string, unknown>,
    createdAt: str(row.created_at),
    yanked: Boolean(row.yanked),
    yankedReason: strOrNull(row.yanked_reason),
  };
}

export function releaseRow(r: ReleaseRecord): TableRow {
  const row = {
    project: r.project,
    version: r.version,
    metadata: JSON.stringify(r.metadata),
    created_at: r.createdAt,
    yanked: r.yanked,
    yanked_reason: r.yankedReason,
  };
  return { table: 'releases', key: ['project', 'version'], row };
}

export function fileOf(row: Row): FileRecord {
  return {
    project: str(row.project),
    version: str(row.version),
    filename: str(row.filename),
    packagetype: str(row.packagetype),
    pyversion: str(row.pyversion),
    size: Number(row.size),
    sha256: str(row.sha256),
    md5: str(row.md5),
    blake2b_256: str(row.blake2b_256),
    uploadTime: str(row.upload_time),
    requiresPython: strOrNull(row.requires_python),
    comment: strOrNull(row.comment),
    metadataSha256: strOrNull(row.metadata_sha256),
    signatureSha256: strOrNull(row.signature_sha256),
    uploader: strOrNull(row.uploader),
    ...(row.publisher ? { publisher: row.publisher as PublisherStamp } : {}),
  };
}

export function fileRow(f: FileRecord): TableRow {
  const row = {
    project: f.project,
    filename: f.filename,
    version: f.version,
    packagetype: f.packagetype,
    pyversion: f.pyversion,
    size: f.size,
    sha256: f.sha256,
    md5: f.md5,
    blake2b_256: f.blake2b_256,
    upload_time: f.uploadTime,
    requires_python: f.requiresPython,
    comment: f.comment,
    metadata_sha256: f.metadataSha256,
    signature_sha256: f.signatureSha256,
    uploader: f.uploader,
    publisher: f.publisher ? JSON.stringify(f.publisher) : null,
  };
  return { table: 'files', key: ['project', 'filename'], row };
}

export function deletedOf(row: Row): DeletedFilename {
  return { project: str(row.project), filename: str(row.filename), deletedAt: str(row.deleted_at) };
}

export function deletedRow(project: string, filename: string, deletedAt: string): TableRow {
  return { table: 'deleted_files', key: ['project', 'filename'], row: { project, filename, deleted_at: deletedAt } };
}

export function endedSessionRow(s: EndedSession): TableRow {
  return { table: 'ended_sessions', key: ['id'], row: { id: s.id, until: s.until } };
}

export function userOf(row: Row): UserRecord {
  return { name: str(row.name), passwordHash: str(row.password_hash), admin: Boolean(row.admin), createdAt: str(row.created_at) };
}

export function userRow(u: UserRecord): TableRow {
  return { table: 'users', key: ['name'], row: { name: u.name, password_hash: u.passwordHash, admin: u.admin, created_at: u.createdAt } };
}

export function tokenOf(row: Row): TokenRecord {
  return {
    id: str(row.id),
    hash: str(row.hash),
    user: str(row.user_name),
    projects: (row.projects as string[] | null) ?? null,
    description: strOrNull(row.description),
    createdAt: str(row.created_at),
    ...(row.expires_at == null ? {} : { expiresAt: str(row.expires_at) }),
  };
}

export function tokenRow(t: TokenRecord): TableRow {
  const row = {
    hash: t.hash,
    id: t.id,
    user_name: t.user,
    projects: t.projects,
    description: t.description,
    created_at: t.createdAt,
    expires_at: t.expiresAt ?? null,
  };
  return { table: 'tokens', key: ['hash'], row };
}

export function allowedOf(row: Row): AllowedName {
  return { name: str(row.name), by: strOrNull(row.by_user), at: str(row.at) };
}

export function allowedRow(a: AllowedName): TableRow {
  return { table: 'allowed_names', key: ['name'], row: { name: a.name, by_user: a.by, at: a.at } };
}

export function changeOf(row: Row): ChangelogEntry {
  return {
    serial: Number(row.serial),
    project: str(row.project),
    version: strOrNull(row.version),
    filename: strOrNull(row.filename),
    action: str(row.action) as ChangeAction,
    user: strOrNull(row.user_name),
    time: str(row.time),
  };
}

export function changeRow(c: ChangelogEntry): TableRow {
  const row = { serial: c.serial, project: c.project, version: c.version, filename: c.filename, action: c.action, user_name: c.user, time: c.time };
  return { table: 'changelog', key: ['serial'], row };
}

export function exemptionOf(row: Row): ExemptionRecord {
  return { project: str(row.project), version: str(row.version), reason: strOrNull(row.reason), by: str(row.by_user), at: str(row.at) };
}

/** `versionKey`: the canonical form of the version, which matching uses. */
export function exemptionRow(e: ExemptionRecord, versionKey: string): TableRow {
  const row = { project: e.project, version_key: versionKey, version: e.version, reason: e.reason, by_user: e.by, at: e.at };
  return { table: 'policy_exemptions', key: ['project', 'version_key'], row };
}

export function collisionOf(row: Row): CollisionRecord {
  return { project: str(row.project), upstream: str(row.upstream), firstSeen: str(row.first_seen), lastSeen: str(row.last_seen) };
}

export function collisionRow(c: CollisionRecord): TableRow {
  const row = { project: c.project, upstream: c.upstream, first_seen: c.firstSeen, last_seen: c.lastSeen };
  return { table: 'policy_collisions', key: ['project', 'upstream'], row };
}

export function cachedFileOf(row: Row): CachedFileRecord {
  return { sha256: str(row.sha256), size: Number(row.size), fetchedAt: Number(row.fetched_at), lastAccess: Number(row.last_access) };
}

export function cachedFileRow(id: { project: string; filename: string; variant: string }, r: CachedFileRecord): TableRow {
  const row = { ...id, sha256: r.sha256, size: r.size, fetched_at: r.fetchedAt, last_access: r.lastAccess };
  return { table: 'cached_files', key: ['project', 'filename', 'variant'], row };
}

export function mirrorSetRow(record: MirrorSetRecord): TableRow {
  return { table: 'mirror_sets', key: ['name'], row: { name: record.name, record: JSON.stringify(record) } };
}
