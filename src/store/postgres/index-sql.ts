/** The single-record writes of the private index, inside a write transaction (`RevisionWriter`). */
import type { AllowedName, ChangeAction, FileRecord, ProjectRecord, ReleaseRecord, TokenRecord, UserRecord } from '../records.js';
import { type Queryable, select } from './database.js';
import { fileRow, projectRow } from './rows.js';

/** INSERT, or UPDATE of every other column when a row with the same key exists. Table and column names are larder's own. */
async function upsert(tx: Queryable, table: string, row: Record<string, unknown>, key: string[]): Promise<void> {
  const columns = Object.keys(row);
  const placeholders = columns.map((_, i) => `$${i + 1}`);
  const updates = columns.filter((c) => !key.includes(c)).map((c) => `${c} = excluded.${c}`);
  await tx.query(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')}) ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${updates.join(', ')}`,
    Object.values(row),
  );
}

/** Takes the next serial, records what changed under it, and makes it the project's serial. */
export async function recordChange(
  tx: Queryable,
  change: { project: string; action: ChangeAction; user: string | null; time: string; version?: string | null; filename?: string | null },
): Promise<number> {
  const [row] = await select(tx, "UPDATE counters SET value = value + 1 WHERE name = 'serial' RETURNING value");
  const serial = Number(row!.value);
  await tx.query('INSERT INTO changelog (serial, project, version, filename, action, user_name, time) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    serial,
    change.project,
    change.version ?? null,
    change.filename ?? null,
    change.action,
    change.user,
    change.time,
  ]);
  await tx.query('UPDATE projects SET serial = $1 WHERE name = $2', [serial, change.project]);
  return serial;
}

export function putProject(tx: Queryable, record: ProjectRecord): Promise<void> {
  return upsert(tx, 'projects', projectRow(record), ['name']);
}

export function putRelease(tx: Queryable, r: ReleaseRecord): Promise<void> {
  const row = {
    project: r.project,
    version: r.version,
    metadata: JSON.stringify(r.metadata),
    created_at: r.createdAt,
    yanked: r.yanked,
    yanked_reason: r.yankedReason,
  };
  return upsert(tx, 'releases', row, ['project', 'version']);
}

export function putFile(tx: Queryable, record: FileRecord): Promise<void> {
  return upsert(tx, 'files', fileRow(record), ['project', 'filename']);
}

export function reserveFilename(tx: Queryable, project: string, filename: string, deletedAt: string): Promise<void> {
  return upsert(tx, 'deleted_files', { project, filename, deleted_at: deletedAt }, ['project', 'filename']);
}

export function putUser(tx: Queryable, user: UserRecord): Promise<void> {
  const row = { name: user.name, password_hash: user.passwordHash, admin: user.admin, created_at: user.createdAt };
  return upsert(tx, 'users', row, ['name']);
}

export function putToken(tx: Queryable, token: TokenRecord): Promise<void> {
  const row = {
    hash: token.hash,
    id: token.id,
    user_name: token.user,
    projects: token.projects,
    description: token.description,
    created_at: token.createdAt,
    expires_at: token.expiresAt ?? null,
  };
  return upsert(tx, 'tokens', row, ['hash']);
}

export function putAllowedName(tx: Queryable, record: AllowedName): Promise<void> {
  return upsert(tx, 'allowed_names', { name: record.name, by_user: record.by, at: record.at }, ['name']);
}
