/**
 * The private index in PostgreSQL. Reads are queries, the ones a request makes cached per node
 * (cached-index-reads.ts); every write is one transaction (change-writer.ts) that locks the rows it
 * changes, so the database decides between nodes: one winner of concurrent uploads of a filename, serials
 * of a project in commit order. Same outcomes as the LMDB store.
 */
import type pg from 'pg';
import type { IndexImport, IndexSnapshot, IndexStore, PublishInput, PublishResult } from '../index-store.js';
import type { EndedSession, FileRecord, ProjectStatusName, TokenRecord, UserRecord } from '../records.js';
import { isSameFile } from '../same-file.js';
import { CachedIndexReads, type CacheSizes } from './cached-index-reads.js';
import type { Change, ChangeWriter } from './change-writer.js';
import { select } from './database.js';
import { lockProject, recordChange } from './index-sql.js';
import { readSnapshot } from './index-snapshot.js';
import { allowedRow, deletedRow, endedSessionRow, fileOf, fileRow, insertNew, projectRow, releaseRow, tokenRow, upsert, userRow } from './rows.js';
import { StagedImport } from './staged-import.js';

const project = (name: string) => `project:${name}`;
const nothing = <T>(result: T): Change<T> => ({ result, scopes: [] });

export class PgIndexStore extends CachedIndexReads implements IndexStore {
  constructor(
    private readonly writer: ChangeWriter,
    private readonly now: () => Date = () => new Date(),
    sizes: CacheSizes = {},
  ) {
    super((operation, fn) => writer.db.run(operation, () => fn(writer.db.pool)), writer.feed, sizes);
  }

  private write<T>(operation: string, fn: (tx: pg.PoolClient) => Promise<Change<T>>): Promise<T> {
    return this.writer.write(operation, fn);
  }

  catchUp(): Promise<void> {
    return this.writer.feed.catchUp();
  }

  readSnapshot<T>(fn: (snapshot: IndexSnapshot) => Promise<T>): Promise<T> {
    return readSnapshot(this.writer.db, fn);
  }

  /** Bounded like the migrations (`bulkTimeoutMs`): an import reads and writes record by record. */
  importRecords<T>(fn: (target: IndexImport) => Promise<T>): Promise<T> {
    const importing = async (tx: pg.PoolClient) => {
      const target = new StagedImport(tx, this.now);
      const result = await fn(target);
      return { result, scopes: await target.finish() };
    };
    return this.writer.write('import', importing, this.writer.db.bulkTimeoutMs);
  }

  publishFile(input: PublishInput): Promise<PublishResult> {
    const { project: p, release, file, user } = input;
    return this.write('publish', async (tx): Promise<Change<PublishResult>> => {
      const deleted = async () => (await select(tx, 'SELECT 1 FROM deleted_files WHERE project = $1 AND filename = $2', [p.name, file.filename])).length > 0;
      let current = await lockProject(tx, p.name);
      let created = false;
      if (!current) {
        // No project, so no files; its removed names cannot change while it does not exist.
        if (await deleted()) return nothing({ outcome: 'reused-filename' });
        const record = { name: p.name, displayName: p.displayName, createdAt: file.uploadTime, serial: 0, owners: user ? [user] : [], maintainers: [] };
        created = await insertNew(tx, projectRow({ ...record, ...(p.serialBase ? { serialBase: p.serialBase } : {}) }));
        // Another node created it meanwhile (this insert waited for its commit): decide against its rows.
        if (!created) current = await lockProject(tx, p.name);
        else await recordChange(tx, { project: p.name, action: 'create project', user, time: this.time() });
      }
      if (current) {
        const [existing] = await select(tx, 'SELECT * FROM files WHERE project = $1 AND filename = $2', [p.name, file.filename]);
        if (existing) {
          const found = fileOf(existing);
          return nothing(isSameFile(found, file) ? { outcome: 'identical', serial: Number(current.serial) } : { outcome: 'conflict', existing: found });
        }
        if (await deleted()) return nothing({ outcome: 'reused-filename' });
        if (current.display_name !== p.displayName) await tx.query('UPDATE projects SET display_name = $1 WHERE name = $2', [p.displayName, p.name]);
      }
      const releaseRecord = {
        project: p.name,
        version: release.version,
        metadata: release.metadata,
        createdAt: file.uploadTime,
        yanked: false,
        yankedReason: null,
      };
      await insertNew(tx, releaseRow(releaseRecord));
      await upsert(tx, fileRow(file));
      const change = { project: p.name, action: 'add file' as const, user, time: this.time(), version: release.version, filename: file.filename };
      const serial = await recordChange(tx, change);
      return { result: { outcome: 'created', serial, newProject: created }, scopes: [project(p.name)] };
    });
  }

  setYanked(name: string, version: string, yanked: boolean, reason: string | null, user: string | null): Promise<number | null> {
    return this.write('yank', async (tx): Promise<Change<number | null>> => {
      if (!(await lockProject(tx, name))) return nothing(null);
      const updated = await select(tx, 'UPDATE releases SET yanked = $1, yanked_reason = $2 WHERE project = $3 AND version = $4 RETURNING 1', [
        yanked,
        yanked ? reason || null : null,
        name,
        version,
      ]);
      if (updated.length === 0) return nothing(null);
      const serial = await recordChange(tx, { project: name, action: yanked ? 'yank release' : 'unyank release', user, time: this.time(), version });
      return { result: serial, scopes: [project(name)] };
    });
  }

  remove(name: string, version: string | null, filename: string | null, user: string | null): Promise<FileRecord[] | null> {
    return this.write('remove', async (tx): Promise<Change<FileRecord[] | null>> => {
      if (!(await lockProject(tx, name))) return nothing(null);
      const matching = 'project = $1 AND ($2::text IS NULL OR version = $2)';
      const files = (
        await select(tx, `SELECT * FROM files WHERE ${matching} AND ($3::text IS NULL OR filename = $3) ORDER BY filename COLLATE "C"`, [
          name,
          version,
          filename,
        ])
      ).map(fileOf);
      const releases = await select(tx, `SELECT version FROM releases WHERE ${matching}`, [name, version]);
      if (filename !== null && files.length === 0) return nothing(null);
      if (version !== null && releases.length === 0) return nothing(null);
      const now = this.time();
      await tx.query('DELETE FROM files WHERE project = $1 AND filename = ANY($2::text[])', [name, files.map((f) => f.filename)]);
      for (const f of files) await upsert(tx, deletedRow(name, f.filename, now));
      if (filename === null) await tx.query(`DELETE FROM releases WHERE ${matching}`, [name, version]);
      if (version === null && filename === null) {
        await tx.query('DELETE FROM projects WHERE name = $1', [name]);
        await recordChange(tx, { project: name, action: 'remove project', user, time: now });
      } else {
        await recordChange(tx, { project: name, action: filename === null ? 'remove release' : 'remove file', user, time: now, version, filename });
      }
      return { result: files, scopes: [project(name)] };
    });
  }

  addMaintainer(name: string, user: string, by: string | null): Promise<boolean> {
    return this.write('add-maintainer', async (tx): Promise<Change<boolean>> => {
      const row = await lockProject(tx, name);
      if (!row) return nothing(false);
      if ((row.owners as string[]).includes(user) || (row.maintainers as string[]).includes(user)) return nothing(true);
      await tx.query('UPDATE projects SET maintainers = array_append(maintainers, $1) WHERE name = $2', [user, name]);
      await recordChange(tx, { project: name, action: 'add maintainer', user: by, time: this.time() });
      return { result: true, scopes: [project(name)] };
    });
  }

  setProjectStatus(name: string, status: ProjectStatusName, reason: string | null, by: string | null): Promise<number | null> {
    return this.write('set-project-status', async (tx): Promise<Change<number | null>> => {
      if (!(await lockProject(tx, name))) return nothing(null);
      const stored = status === 'active' ? null : status;
      await tx.query('UPDATE projects SET status = $1, status_reason = $2 WHERE name = $3', [stored, reason || null, name]);
      const serial = await recordChange(tx, { project: name, action: 'set project status', user: by, time: this.time() });
      return { result: serial, scopes: [project(name)] };
    });
  }

  putUser(user: UserRecord): Promise<void> {
    return this.write('put-user', async (tx) => {
      await upsert(tx, userRow(user));
      return { result: undefined, scopes: [`user:${user.name}`] };
    });
  }

  removeUser(name: string): Promise<boolean> {
    return this.write('remove-user', async (tx): Promise<Change<boolean>> => {
      if ((await select(tx, 'DELETE FROM users WHERE name = $1 RETURNING 1', [name])).length === 0) return nothing(false);
      const tokens = await select(tx, 'DELETE FROM tokens WHERE user_name = $1 RETURNING hash', [name]);
      const projects = await select(
        tx,
        'UPDATE projects SET owners = array_remove(owners, $1), maintainers = array_remove(maintainers, $1) WHERE $1 = ANY(owners) OR $1 = ANY(maintainers) RETURNING name',
        [name],
      );
      const scopes = [`user:${name}`, ...tokens.map((t) => `token:${t.hash}`), ...projects.map((p) => project(String(p.name)))];
      return { result: true, scopes };
    });
  }

  putToken(token: TokenRecord): Promise<void> {
    return this.write('put-token', async (tx) => {
      await upsert(tx, tokenRow(token));
      return { result: undefined, scopes: [`token:${token.hash}`] };
    });
  }

  removeToken(id: string): Promise<boolean> {
    return this.write('remove-token', async (tx): Promise<Change<boolean>> => {
      const removed = await select(tx, 'DELETE FROM tokens WHERE id = $1 RETURNING hash', [id]);
      return { result: removed.length > 0, scopes: removed.map((t) => `token:${t.hash}`) };
    });
  }

  allowName(name: string, by: string | null): Promise<void> {
    return this.write('allow-name', async (tx) => {
      await upsert(tx, allowedRow({ name, by, at: this.time() }));
      return nothing(undefined);
    });
  }

  endSession(session: EndedSession, now: number): Promise<void> {
    return this.write('end-session', async (tx) => {
      const forgotten = await select(tx, 'DELETE FROM ended_sessions WHERE until <= $1 RETURNING id', [now]);
      await insertNew(tx, endedSessionRow(session));
      return { result: undefined, scopes: [session.id, ...forgotten.map((row) => String(row.id))].map((id) => `session:${id}`) };
    });
  }

  private time(): string {
    return this.now().toISOString();
  }
}
