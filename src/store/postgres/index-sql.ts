/** The single-record writes of the private index, inside a write transaction (`RevisionWriter`). */
import type { TransactionSql } from 'postgres';
import type { AllowedName, ChangeAction, FileRecord, ProjectRecord, ReleaseRecord, TokenRecord, UserRecord } from '../records.js';
import { fileRow, projectRow, type Row } from './rows.js';

type Tx = TransactionSql;

/** Takes the next serial, records what changed under it, and makes it the project's serial. */
export async function recordChange(
  tx: Tx,
  change: { project: string; action: ChangeAction; user: string | null; time: string; version?: string | null; filename?: string | null },
): Promise<number> {
  const [row] = await tx<Row[]>`UPDATE counters SET value = value + 1 WHERE name = 'serial' RETURNING value`;
  const serial = Number(row!.value);
  await tx`
    INSERT INTO changelog (serial, project, version, filename, action, user_name, time)
    VALUES (${serial}, ${change.project}, ${change.version ?? null}, ${change.filename ?? null}, ${change.action}, ${change.user}, ${change.time})`;
  await tx`UPDATE projects SET serial = ${serial} WHERE name = ${change.project}`;
  return serial;
}

export async function putProject(tx: Tx, record: ProjectRecord): Promise<void> {
  const row = projectRow(record);
  await tx`
    INSERT INTO projects ${tx(row)}
    ON CONFLICT (name) DO UPDATE SET display_name = excluded.display_name, created_at = excluded.created_at, serial = excluded.serial,
      serial_base = excluded.serial_base, owners = excluded.owners, maintainers = excluded.maintainers`;
}

export async function putRelease(tx: Tx, r: ReleaseRecord): Promise<void> {
  await tx`
    INSERT INTO releases (project, version, metadata, created_at, yanked, yanked_reason)
    VALUES (${r.project}, ${r.version}, ${tx.json(r.metadata as Parameters<Tx['json']>[0])}, ${r.createdAt}, ${r.yanked}, ${r.yankedReason})
    ON CONFLICT (project, version) DO UPDATE SET metadata = excluded.metadata, created_at = excluded.created_at,
      yanked = excluded.yanked, yanked_reason = excluded.yanked_reason`;
}

export async function putFile(tx: Tx, record: FileRecord): Promise<void> {
  const row = fileRow(record);
  const columns = Object.keys(row).filter((column) => column !== 'project' && column !== 'filename');
  await tx`
    INSERT INTO files ${tx(row)}
    ON CONFLICT (project, filename) DO UPDATE SET ${tx.unsafe(columns.map((c) => `${c} = excluded.${c}`).join(', '))}`;
}

export async function reserveFilename(tx: Tx, project: string, filename: string, deletedAt: string): Promise<void> {
  await tx`
    INSERT INTO deleted_files (project, filename, deleted_at) VALUES (${project}, ${filename}, ${deletedAt})
    ON CONFLICT (project, filename) DO UPDATE SET deleted_at = excluded.deleted_at`;
}

export async function putUser(tx: Tx, user: UserRecord): Promise<void> {
  await tx`
    INSERT INTO users (name, password_hash, admin, created_at) VALUES (${user.name}, ${user.passwordHash}, ${user.admin}, ${user.createdAt})
    ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, admin = excluded.admin, created_at = excluded.created_at`;
}

export async function putToken(tx: Tx, token: TokenRecord): Promise<void> {
  await tx`
    INSERT INTO tokens (hash, id, user_name, projects, description, created_at)
    VALUES (${token.hash}, ${token.id}, ${token.user}, ${token.projects}, ${token.description}, ${token.createdAt})
    ON CONFLICT (hash) DO UPDATE SET id = excluded.id, user_name = excluded.user_name, projects = excluded.projects,
      description = excluded.description, created_at = excluded.created_at`;
}

export async function putAllowedName(tx: Tx, record: AllowedName): Promise<void> {
  await tx`
    INSERT INTO allowed_names (name, by_user, at) VALUES (${record.name}, ${record.by}, ${record.at})
    ON CONFLICT (name) DO UPDATE SET by_user = excluded.by_user, at = excluded.at`;
}
