/**
 * The private index in PostgreSQL. Reads are served from this node's in-memory view (`IndexView`), kept
 * current by the replica; every write is one `RevisionWriter` transaction that checks against the
 * database (not the view), so filename uniqueness, serial order and the one winner of concurrent uploads
 * hold across nodes. Same outcomes and serials as the LMDB store.
 */
import type pg from 'pg';
import type { IndexImport, IndexSnapshot, IndexStore, PublishInput, PublishResult } from '../index-store.js';
import type { EndedSession, FileRecord, TokenRecord, UserRecord } from '../records.js';
import { loadIndex, loadIndexUpdate } from './index-loader.js';
import * as write from './index-sql.js';
import { IndexView } from './index-view.js';
import { type Queryable, select } from './database.js';
import type { Replica, ReplicaPart } from './replica.js';
import type { Change, RevisionWriter } from './revision-writer.js';
import { fileOf } from './rows.js';
import { isSameFile } from '../same-file.js';
import { StagedImport } from './staged-import.js';

const project = (name: string) => `project:${name}`;

export class PgIndexStore extends IndexView implements IndexStore, ReplicaPart {
  private writer: RevisionWriter | undefined;
  private replica: Replica | undefined;

  constructor(private readonly now: () => Date = () => new Date()) {
    super();
  }

  /** Connects the store to its database (open-postgres.ts does it before the replica starts). */
  attach(replica: Replica, writer: RevisionWriter): void {
    this.replica = replica;
    this.writer = writer;
  }

  private write<T>(operation: string, fn: (tx: pg.PoolClient) => Promise<Change<T>>): Promise<T> {
    if (!this.writer) throw new Error('the PostgreSQL index store is not attached to a database');
    return this.writer.write(operation, fn);
  }

  async load(sql: Queryable, scopes: Set<string> | null): Promise<() => void> {
    if (scopes === null) {
      const state = await loadIndex(sql);
      return () => this.replaceAll(state);
    }
    const update = await loadIndexUpdate(sql, scopes, this.state.serial);
    return () => this.apply(update);
  }

  catchUp(): Promise<void> {
    return this.replica ? this.replica.catchUp() : Promise.resolve();
  }

  readSnapshot<T>(fn: (snapshot: IndexSnapshot) => Promise<T>): Promise<T> {
    return fn(this.snapshot());
  }

  importRecords<T>(fn: (target: IndexImport) => Promise<T>): Promise<T> {
    return this.write('import', async (tx) => {
      // A copy of the view, brought up to the database inside this transaction (which holds the revision lock).
      const target = new StagedImport(this.copyState(), this.now);
      const changes = await this.replica!.changesAfter(tx, this.replica!.revision());
      if (changes?.scopes === null) target.replaceAll(await loadIndex(tx));
      else if (changes) target.apply(await loadIndexUpdate(tx, changes.scopes, await target.lastSerial()));
      const result = await fn(target);
      return { result, scopes: await target.writeTo(tx) };
    });
  }

  publishFile(input: PublishInput): Promise<PublishResult> {
    const { project: p, release, file, user } = input;
    return this.write('publish', async (tx): Promise<Change<PublishResult>> => {
      const [existing] = await select(tx, 'SELECT * FROM files WHERE project = $1 AND filename = $2', [p.name, file.filename]);
      const [current] = await select(tx, 'SELECT display_name, serial FROM projects WHERE name = $1', [p.name]);
      if (existing) {
        const found = fileOf(existing);
        const same = isSameFile(found, file);
        const serial = current ? Number(current.serial) : await lastSerial(tx);
        return { result: same ? { outcome: 'identical', serial } : { outcome: 'conflict', existing: found }, scopes: [] };
      }
      const [deleted] = await select(tx, 'SELECT 1 FROM deleted_files WHERE project = $1 AND filename = $2', [p.name, file.filename]);
      if (deleted) return { result: { outcome: 'reused-filename' }, scopes: [] };
      const now = file.uploadTime;
      if (!current) {
        await write.putProject(tx, {
          name: p.name,
          displayName: p.displayName,
          createdAt: now,
          serial: 0,
          ...(p.serialBase ? { serialBase: p.serialBase } : {}),
          owners: user ? [user] : [],
          maintainers: [],
        });
        await write.recordChange(tx, { project: p.name, action: 'create project', user, time: this.time() });
      } else if (current.display_name !== p.displayName) {
        await tx.query('UPDATE projects SET display_name = $1 WHERE name = $2', [p.displayName, p.name]);
      }
      await tx.query(
        'INSERT INTO releases (project, version, metadata, created_at, yanked, yanked_reason) VALUES ($1, $2, $3::json, $4, false, null) ON CONFLICT (project, version) DO NOTHING',
        [p.name, release.version, JSON.stringify(release.metadata), now],
      );
      await write.putFile(tx, file);
      const serial = await write.recordChange(tx, {
        project: p.name,
        action: 'add file',
        user,
        time: this.time(),
        version: release.version,
        filename: file.filename,
      });
      return { result: { outcome: 'created', serial, newProject: !current }, scopes: [project(p.name)] };
    });
  }

  setYanked(name: string, version: string, yanked: boolean, reason: string | null, user: string | null): Promise<number | null> {
    return this.write('yank', async (tx): Promise<Change<number | null>> => {
      const updated = await select(tx, 'UPDATE releases SET yanked = $1, yanked_reason = $2 WHERE project = $3 AND version = $4 RETURNING 1', [
        yanked,
        yanked ? reason || null : null,
        name,
        version,
      ]);
      if (updated.length === 0) return { result: null, scopes: [] };
      const serial = await write.recordChange(tx, { project: name, action: yanked ? 'yank release' : 'unyank release', user, time: this.time(), version });
      return { result: serial, scopes: [project(name)] };
    });
  }

  remove(name: string, version: string | null, filename: string | null, user: string | null): Promise<FileRecord[] | null> {
    return this.write('remove', async (tx): Promise<Change<FileRecord[] | null>> => {
      const none = { result: null, scopes: [] };
      if ((await select(tx, 'SELECT 1 FROM projects WHERE name = $1', [name])).length === 0) return none;
      const matching = 'project = $1 AND ($2::text IS NULL OR version = $2)';
      const files = (
        await select(tx, `SELECT * FROM files WHERE ${matching} AND ($3::text IS NULL OR filename = $3) ORDER BY filename COLLATE "C"`, [
          name,
          version,
          filename,
        ])
      ).map(fileOf);
      const releases = await select(tx, `SELECT version FROM releases WHERE ${matching}`, [name, version]);
      if (filename !== null && files.length === 0) return none;
      if (version !== null && releases.length === 0) return none;
      const now = this.time();
      const names = files.map((f) => f.filename);
      await tx.query('DELETE FROM files WHERE project = $1 AND filename = ANY($2::text[])', [name, names]);
      for (const f of names) await write.reserveFilename(tx, name, f, now);
      if (filename === null) await tx.query(`DELETE FROM releases WHERE ${matching}`, [name, version]);
      if (version === null && filename === null) {
        await write.recordChange(tx, { project: name, action: 'remove project', user, time: now });
        await tx.query('DELETE FROM projects WHERE name = $1', [name]);
      } else {
        await write.recordChange(tx, { project: name, action: filename === null ? 'remove release' : 'remove file', user, time: now, version, filename });
      }
      return { result: files, scopes: [project(name)] };
    });
  }

  addMaintainer(name: string, user: string, by: string | null): Promise<boolean> {
    return this.write('add-maintainer', async (tx): Promise<Change<boolean>> => {
      const [row] = await select(tx, 'SELECT owners, maintainers FROM projects WHERE name = $1', [name]);
      if (!row) return { result: false, scopes: [] };
      if ((row.owners as string[]).includes(user) || (row.maintainers as string[]).includes(user)) return { result: true, scopes: [] };
      await tx.query('UPDATE projects SET maintainers = array_append(maintainers, $1) WHERE name = $2', [user, name]);
      await write.recordChange(tx, { project: name, action: 'add maintainer', user: by, time: this.time() });
      return { result: true, scopes: [project(name)] };
    });
  }

  putUser(user: UserRecord): Promise<void> {
    return this.write('put-user', async (tx) => {
      await write.putUser(tx, user);
      return { result: undefined, scopes: [`user:${user.name}`] };
    });
  }

  removeUser(name: string): Promise<boolean> {
    return this.write('remove-user', async (tx): Promise<Change<boolean>> => {
      if ((await select(tx, 'DELETE FROM users WHERE name = $1 RETURNING 1', [name])).length === 0) return { result: false, scopes: [] };
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
      await write.putToken(tx, token);
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
      await write.putAllowedName(tx, { name, by, at: this.time() });
      return { result: undefined, scopes: [`allowed:${name}`] };
    });
  }

  endSession(session: EndedSession, now: number): Promise<void> {
    return this.write('end-session', async (tx) => {
      const forgotten = await select(tx, 'DELETE FROM ended_sessions WHERE until <= $1 RETURNING id', [now]);
      await tx.query('INSERT INTO ended_sessions (id, until) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [session.id, session.until]);
      return { result: undefined, scopes: [session.id, ...forgotten.map((row) => String(row.id))].map((id) => `session:${id}`) };
    });
  }

  private time(): string {
    return this.now().toISOString();
  }
}

async function lastSerial(tx: Queryable): Promise<number> {
  const [row] = await select(tx, "SELECT value FROM counters WHERE name = 'serial'");
  return Number(row?.value ?? 0);
}
