/** The private index's records as rows of the PostgreSQL tables (migrations.ts), and back. */
import type { Row } from './database.js';
import type { ChangeAction, ChangelogEntry, FileRecord, ProjectRecord, ReleaseRecord, TokenRecord, UserRecord } from '../records.js';

const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

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
  };
}

export function projectRow(p: ProjectRecord) {
  return {
    name: p.name,
    display_name: p.displayName,
    created_at: p.createdAt,
    serial: p.serial,
    serial_base: p.serialBase ?? null,
    owners: p.owners,
    maintainers: p.maintainers,
  };
}

export function releaseOf(row: Row): ReleaseRecord {
  return {
    project: str(row.project),
    version: str(row.version),
    metadata: row.metadata as Record<string, unknown>,
    createdAt: str(row.created_at),
    yanked: Boolean(row.yanked),
    yankedReason: strOrNull(row.yanked_reason),
  };
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
  };
}

export function fileRow(f: FileRecord) {
  return {
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
  };
}

export function userOf(row: Row): UserRecord {
  return { name: str(row.name), passwordHash: str(row.password_hash), admin: Boolean(row.admin), createdAt: str(row.created_at) };
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
