/**
 * Reads of the private index's tables for the in-memory view: everything (a full reload), or the parts a
 * set of revision scopes names. Run inside one snapshot so that what is loaded belongs together.
 * `Sql` is any of npm `postgres`'s: the pool, a transaction or a reserved connection. Scopes: `project:<name>`, `user:<name>`, `token:<hash>`, `allowed:<name>`.
 */
import type { ISql as Sql } from 'postgres';
import type { AllowedName, TokenRecord, UserRecord } from '../records.js';
import { emptyPart, type IndexState, type IndexUpdate, type ProjectPart } from './index-view.js';
import { changeOf, fileOf, projectOf, releaseOf, type Row, tokenOf, userOf } from './rows.js';

const deepFreeze = <T extends object>(record: T): T => {
  for (const value of Object.values(record)) if (value && typeof value === 'object' && !Object.isFrozen(value)) deepFreeze(value);
  return Object.freeze(record);
};

/** Projects (with releases, files, removed names) by name; all of them when `names` is null. */
async function loadParts(sql: Sql, names: string[] | null): Promise<Map<string, ProjectPart>> {
  const parts = new Map<string, ProjectPart>((names ?? []).map((name) => [name, emptyPart()]));
  const part = (name: string) => {
    const p = parts.get(name) ?? emptyPart();
    parts.set(name, p);
    return p;
  };
  const where = (column: string) => (names ? sql`WHERE ${sql(column)} = ANY(${names})` : sql``);
  const [projects, releases, files, deleted] = await Promise.all([
    sql<Row[]>`SELECT * FROM projects ${where('name')}`,
    sql<Row[]>`SELECT * FROM releases ${where('project')} ORDER BY version COLLATE "C"`,
    sql<Row[]>`SELECT * FROM files ${where('project')} ORDER BY filename COLLATE "C"`,
    sql<Row[]>`SELECT * FROM deleted_files ${where('project')} ORDER BY filename COLLATE "C"`,
  ]);
  for (const row of projects) part(String(row.name)).record = deepFreeze(projectOf(row));
  for (const row of releases) part(String(row.project)).releases.set(String(row.version), deepFreeze(releaseOf(row)));
  for (const row of files) part(String(row.project)).files.set(String(row.filename), deepFreeze(fileOf(row)));
  for (const row of deleted) part(String(row.project)).deleted.set(String(row.filename), String(row.deleted_at));
  return parts;
}

async function loadUsers(sql: Sql, names: string[] | null): Promise<Map<string, UserRecord>> {
  const rows = await sql<Row[]>`SELECT * FROM users ${names ? sql`WHERE name = ANY(${names})` : sql``} ORDER BY name COLLATE "C"`;
  return new Map(rows.map((row) => [String(row.name), deepFreeze(userOf(row))]));
}

async function loadTokens(sql: Sql, hashes: string[] | null): Promise<Map<string, TokenRecord>> {
  const rows = await sql<Row[]>`SELECT * FROM tokens ${hashes ? sql`WHERE hash = ANY(${hashes})` : sql``} ORDER BY hash COLLATE "C"`;
  return new Map(rows.map((row) => [String(row.hash), deepFreeze(tokenOf(row))]));
}

async function loadAllowed(sql: Sql, names: string[] | null): Promise<Map<string, AllowedName>> {
  const rows = await sql<Row[]>`SELECT * FROM allowed_names ${names ? sql`WHERE name = ANY(${names})` : sql``} ORDER BY name COLLATE "C"`;
  return new Map(
    rows.map((row) => [String(row.name), Object.freeze({ name: String(row.name), by: row.by_user === null ? null : String(row.by_user), at: String(row.at) })]),
  );
}

async function loadSerial(sql: Sql): Promise<number> {
  const [row] = await sql<Row[]>`SELECT value FROM counters WHERE name = 'serial'`;
  return Number(row?.value ?? 0);
}

async function loadChanges(sql: Sql, after: number) {
  const rows = await sql<Row[]>`SELECT * FROM changelog WHERE serial > ${after} ORDER BY serial`;
  return rows.map((row) => Object.freeze(changeOf(row)));
}

export async function loadIndex(sql: Sql): Promise<IndexState> {
  const [projects, users, tokens, allowed, changelog, serial] = await Promise.all([
    loadParts(sql, null),
    loadUsers(sql, null),
    loadTokens(sql, null),
    loadAllowed(sql, null),
    loadChanges(sql, 0),
    loadSerial(sql),
  ]);
  return { projects, users, tokens, allowed, changelog, serial };
}

/** Keys of the scopes of one kind ('project', 'user', …). */
const keysOf = (scopes: Set<string>, kind: string): string[] =>
  [...scopes].filter((scope) => scope.startsWith(`${kind}:`)).map((scope) => scope.slice(kind.length + 1));

/** What the scopes name (a missing key comes back as undefined: deleted), and the changes after `serial`. */
export async function loadIndexUpdate(sql: Sql, scopes: Set<string>, serial: number): Promise<IndexUpdate> {
  const projectNames = keysOf(scopes, 'project');
  const userNames = keysOf(scopes, 'user');
  const tokenHashes = keysOf(scopes, 'token');
  const allowedNames = keysOf(scopes, 'allowed');
  const none = Promise.resolve(new Map());
  const [projects, users, tokens, allowed, changes, newSerial] = await Promise.all([
    projectNames.length ? loadParts(sql, projectNames) : none,
    userNames.length ? loadUsers(sql, userNames) : none,
    tokenHashes.length ? loadTokens(sql, tokenHashes) : none,
    allowedNames.length ? loadAllowed(sql, allowedNames) : none,
    loadChanges(sql, serial),
    loadSerial(sql),
  ]);
  const withMissing = <V>(found: Map<string, V>, keys: string[]) => new Map<string, V | undefined>(keys.map((key) => [key, found.get(key)]));
  return {
    projects,
    users: withMissing(users, userNames),
    tokens: withMissing(tokens, tokenHashes),
    allowed: withMissing(allowed, allowedNames),
    changes,
    serial: newSerial,
  };
}
