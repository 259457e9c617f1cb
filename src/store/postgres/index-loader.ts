/**
 * Reads of the private index's tables for the in-memory view: everything (a full reload), or the parts a
 * set of revision scopes names. Run inside one snapshot so that what is loaded belongs together.
 * Scopes: `project:<name>`, `user:<name>`, `token:<hash>`, `allowed:<name>`, `session:<id>`.
 */
import type { AllowedName, TokenRecord, UserRecord } from '../records.js';
import { emptyPart, type IndexState, type IndexUpdate, type ProjectPart } from './index-view.js';
import { type Queryable, select } from './database.js';
import { changeOf, fileOf, projectOf, releaseOf, tokenOf, userOf } from './rows.js';

const deepFreeze = <T extends object>(record: T): T => {
  for (const value of Object.values(record)) if (value && typeof value === 'object' && !Object.isFrozen(value)) deepFreeze(value);
  return Object.freeze(record);
};

/** Projects (with releases, files, removed names) by name; all of them when `names` is null. */
async function loadParts(sql: Queryable, names: string[] | null): Promise<Map<string, ProjectPart>> {
  const parts = new Map<string, ProjectPart>((names ?? []).map((name) => [name, emptyPart()]));
  const part = (name: string) => {
    const p = parts.get(name) ?? emptyPart();
    parts.set(name, p);
    return p;
  };
  const where = (column: string) => (names ? `WHERE ${column} = ANY($1::text[])` : '');
  const values = names ? [names] : [];
  // One after the other: a transaction's connection runs one query at a time.
  const projects = await select(sql, `SELECT * FROM projects ${where('name')}`, values);
  const releases = await select(sql, `SELECT * FROM releases ${where('project')} ORDER BY version COLLATE "C"`, values);
  const files = await select(sql, `SELECT * FROM files ${where('project')} ORDER BY filename COLLATE "C"`, values);
  const deleted = await select(sql, `SELECT * FROM deleted_files ${where('project')} ORDER BY filename COLLATE "C"`, values);
  for (const row of projects) part(String(row.name)).record = deepFreeze(projectOf(row));
  for (const row of releases) part(String(row.project)).releases.set(String(row.version), deepFreeze(releaseOf(row)));
  for (const row of files) part(String(row.project)).files.set(String(row.filename), deepFreeze(fileOf(row)));
  for (const row of deleted) part(String(row.project)).deleted.set(String(row.filename), String(row.deleted_at));
  return parts;
}

/** Rows of `table` (all, or those whose `key` is one of `keys`), in key order. Table and column names are larder's own. */
function rowsOf(sql: Queryable, table: string, key: string, keys: string[] | null) {
  return keys
    ? select(sql, `SELECT * FROM ${table} WHERE ${key} = ANY($1::text[]) ORDER BY ${key} COLLATE "C"`, [keys])
    : select(sql, `SELECT * FROM ${table} ORDER BY ${key} COLLATE "C"`);
}

async function loadUsers(sql: Queryable, names: string[] | null): Promise<Map<string, UserRecord>> {
  const rows = await rowsOf(sql, 'users', 'name', names);
  return new Map(rows.map((row) => [String(row.name), deepFreeze(userOf(row))]));
}

async function loadTokens(sql: Queryable, hashes: string[] | null): Promise<Map<string, TokenRecord>> {
  const rows = await rowsOf(sql, 'tokens', 'hash', hashes);
  return new Map(rows.map((row) => [String(row.hash), deepFreeze(tokenOf(row))]));
}

async function loadAllowed(sql: Queryable, names: string[] | null): Promise<Map<string, AllowedName>> {
  const rows = await rowsOf(sql, 'allowed_names', 'name', names);
  return new Map(
    rows.map((row) => [String(row.name), Object.freeze({ name: String(row.name), by: row.by_user === null ? null : String(row.by_user), at: String(row.at) })]),
  );
}

async function loadEndedSessions(sql: Queryable, ids: string[] | null): Promise<Map<string, number>> {
  const rows = await rowsOf(sql, 'ended_sessions', 'id', ids);
  return new Map(rows.map((row) => [String(row.id), Number(row.until)]));
}

async function loadSerial(sql: Queryable): Promise<number> {
  const [row] = await select(sql, "SELECT value FROM counters WHERE name = 'serial'");
  return Number(row?.value ?? 0);
}

async function loadChanges(sql: Queryable, after: number) {
  const rows = await select(sql, 'SELECT * FROM changelog WHERE serial > $1 ORDER BY serial', [after]);
  return rows.map((row) => Object.freeze(changeOf(row)));
}

export async function loadIndex(sql: Queryable): Promise<IndexState> {
  return {
    projects: await loadParts(sql, null),
    users: await loadUsers(sql, null),
    tokens: await loadTokens(sql, null),
    allowed: await loadAllowed(sql, null),
    endedSessions: await loadEndedSessions(sql, null),
    changelog: await loadChanges(sql, 0),
    serial: await loadSerial(sql),
  };
}

/** Keys of the scopes of one kind ('project', 'user', …). */
const keysOf = (scopes: Set<string>, kind: string): string[] =>
  [...scopes].filter((scope) => scope.startsWith(`${kind}:`)).map((scope) => scope.slice(kind.length + 1));

/** What the scopes name (a missing key comes back as undefined: deleted), and the changes after `serial`. */
export async function loadIndexUpdate(sql: Queryable, scopes: Set<string>, serial: number): Promise<IndexUpdate> {
  const projectNames = keysOf(scopes, 'project');
  const userNames = keysOf(scopes, 'user');
  const tokenHashes = keysOf(scopes, 'token');
  const allowedNames = keysOf(scopes, 'allowed');
  const sessionIds = keysOf(scopes, 'session');
  const projects = projectNames.length ? await loadParts(sql, projectNames) : new Map<string, ProjectPart>();
  const users = userNames.length ? await loadUsers(sql, userNames) : new Map<string, UserRecord>();
  const tokens = tokenHashes.length ? await loadTokens(sql, tokenHashes) : new Map<string, TokenRecord>();
  const allowed = allowedNames.length ? await loadAllowed(sql, allowedNames) : new Map<string, AllowedName>();
  const endedSessions = sessionIds.length ? await loadEndedSessions(sql, sessionIds) : new Map<string, number>();
  const changes = await loadChanges(sql, serial);
  const newSerial = await loadSerial(sql);
  const withMissing = <V>(found: Map<string, V>, keys: string[]) => new Map<string, V | undefined>(keys.map((key) => [key, found.get(key)]));
  return {
    projects,
    users: withMissing(users, userNames),
    tokens: withMissing(tokens, tokenHashes),
    allowed: withMissing(allowed, allowedNames),
    endedSessions: withMissing(endedSessions, sessionIds),
    changes,
    serial: newSerial,
  };
}
