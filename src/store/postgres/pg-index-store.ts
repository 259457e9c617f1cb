/**
 * The private index in PostgreSQL. Reads are served from this node's in-memory view (`IndexView`), kept
 * current by the replica; every write is one `RevisionWriter` transaction that checks against the
 * database (not the view), so filename uniqueness, serial order and the one winner of concurrent uploads
 * hold across nodes. Same outcomes and serials as the LMDB store.
 */
import type { ISql, TransactionSql } from 'postgres';
import type { IndexImport, IndexSnapshot, IndexStore, PublishInput, PublishResult } from '../index-store.js';
import type { FileRecord, TokenRecord, UserRecord } from '../records.js';
import { loadIndex, loadIndexUpdate } from './index-loader.js';
import * as write from './index-sql.js';
import { IndexView } from './index-view.js';
import type { Replica, ReplicaPart } from './replica.js';
import type { Change, RevisionWriter } from './revision-writer.js';
import { fileOf, type Row } from './rows.js';
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

  private write<T>(operation: string, fn: (tx: TransactionSql) => Promise<Change<T>>): Promise<T> {
    if (!this.writer) throw new Error('the PostgreSQL index store is not attached to a database');
    return this.writer.write(operation, fn);
  }

  async load(sql: ISql, scopes: Set<string> | null): Promise<() => void> {
    if (scopes === null) {
      const state = await loadIndex(sql);
      return () => this.replaceAll(state);
    }
    const update = await loadIndexUpdate(sql, scopes, this.lastSerial());
    return () => this.apply(update);
  }

  catchUp(): Promise<void> {
    return this.replica ? this.replica.catchUp() : Promise.resolve();
  }

  readSnapshot<T>(fn: (snapshot: IndexSnapshot) => T): T {
    return fn(this.snapshot());
  }

  importRecords<T>(fn: (target: IndexImport) => T): Promise<T> {
    return this.write('import', async (tx) => {
      // A copy of the view, brought up to the database inside this transaction (which holds the revision lock).
      const target = new StagedImport(this.copyState(), this.now);
      const changes = await this.replica!.changesAfter(tx, this.replica!.revision());
      if (changes?.scopes === null) target.replaceAll(await loadIndex(tx));
      else if (changes) target.apply(await loadIndexUpdate(tx, changes.scopes, target.lastSerial()));
      const result = fn(target);
      return { result, scopes: await target.writeTo(tx) };
    });
  }

  publishFile(input: PublishInput): Promise<PublishResult> {
    const { project: p, release, file, user } = input;
    return this.write('publish', async (tx): Promise<Change<PublishResult>> => {
      const [existing] = await tx<Row[]>`SELECT * FROM files WHERE project = ${p.name} AND filename = ${file.filename}`;
      const [current] = await tx<Row[]>`SELECT display_name, serial FROM projects WHERE name = ${p.name}`;
      if (existing) {
        const found = fileOf(existing);
        const same = found.sha256 === file.sha256 && found.blake2b_256 === file.blake2b_256;
        const serial = current ? Number(current.serial) : await lastSerial(tx);
        return { result: same ? { outcome: 'identical', serial } : { outcome: 'conflict', existing: found }, scopes: [] };
      }
      const [deleted] = await tx`SELECT 1 FROM deleted_files WHERE project = ${p.name} AND filename = ${file.filename}`;
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
        await tx`UPDATE projects SET display_name = ${p.displayName} WHERE name = ${p.name}`;
      }
      await tx`
        INSERT INTO releases (project, version, metadata, created_at, yanked, yanked_reason)
        VALUES (${p.name}, ${release.version}, ${tx.json(release.metadata as Parameters<typeof tx.json>[0])}, ${now}, false, null)
        ON CONFLICT (project, version) DO NOTHING`;
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
      const updated = await tx`
        UPDATE releases SET yanked = ${yanked}, yanked_reason = ${yanked ? reason || null : null}
        WHERE project = ${name} AND version = ${version} RETURNING 1`;
      if (updated.length === 0) return { result: null, scopes: [] };
      const serial = await write.recordChange(tx, { project: name, action: yanked ? 'yank release' : 'unyank release', user, time: this.time(), version });
      return { result: serial, scopes: [project(name)] };
    });
  }

  remove(name: string, version: string | null, filename: string | null, user: string | null): Promise<FileRecord[] | null> {
    return this.write('remove', async (tx): Promise<Change<FileRecord[] | null>> => {
      const none = { result: null, scopes: [] };
      if ((await tx`SELECT 1 FROM projects WHERE name = ${name}`).length === 0) return none;
      const files = (
        await tx<Row[]>`
          SELECT * FROM files WHERE project = ${name} AND (${version}::text IS NULL OR version = ${version})
            AND (${filename}::text IS NULL OR filename = ${filename}) ORDER BY filename COLLATE "C"`
      ).map(fileOf);
      const releases = await tx`SELECT version FROM releases WHERE project = ${name} AND (${version}::text IS NULL OR version = ${version})`;
      if (filename !== null && files.length === 0) return none;
      if (version !== null && releases.length === 0) return none;
      const now = this.time();
      const names = files.map((f) => f.filename);
      await tx`DELETE FROM files WHERE project = ${name} AND filename = ANY(${names})`;
      for (const f of names) await write.reserveFilename(tx, name, f, now);
      if (filename === null) await tx`DELETE FROM releases WHERE project = ${name} AND (${version}::text IS NULL OR version = ${version})`;
      if (version === null && filename === null) {
        await write.recordChange(tx, { project: name, action: 'remove project', user, time: now });
        await tx`DELETE FROM projects WHERE name = ${name}`;
      } else {
        await write.recordChange(tx, { project: name, action: filename === null ? 'remove release' : 'remove file', user, time: now, version, filename });
      }
      return { result: files, scopes: [project(name)] };
    });
  }

  addMaintainer(name: string, user: string, by: string | null): Promise<boolean> {
    return this.write('add-maintainer', async (tx): Promise<Change<boolean>> => {
      const [row] = await tx<Row[]>`SELECT owners, maintainers FROM projects WHERE name = ${name}`;
      if (!row) return { result: false, scopes: [] };
      if ((row.owners as string[]).includes(user) || (row.maintainers as string[]).includes(user)) return { result: true, scopes: [] };
      await tx`UPDATE projects SET maintainers = array_append(maintainers, ${user}) WHERE name = ${name}`;
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
      if ((await tx`DELETE FROM users WHERE name = ${name} RETURNING 1`).length === 0) return { result: false, scopes: [] };
      const tokens = await tx<Row[]>`DELETE FROM tokens WHERE user_name = ${name} RETURNING hash`;
      const projects = await tx<Row[]>`
        UPDATE projects SET owners = array_remove(owners, ${name}), maintainers = array_remove(maintainers, ${name})
        WHERE ${name} = ANY(owners) OR ${name} = ANY(maintainers) RETURNING name`;
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
      const removed = await tx<Row[]>`DELETE FROM tokens WHERE id = ${id} RETURNING hash`;
      return { result: removed.length > 0, scopes: removed.map((t) => `token:${t.hash}`) };
    });
  }

  allowName(name: string, by: string | null): Promise<void> {
    return this.write('allow-name', async (tx) => {
      await write.putAllowedName(tx, { name, by, at: this.time() });
      return { result: undefined, scopes: [`allowed:${name}`] };
    });
  }

  private time(): string {
    return this.now().toISOString();
  }
}

async function lastSerial(tx: TransactionSql): Promise<number> {
  const [row] = await tx<Row[]>`SELECT value FROM counters WHERE name = 'serial'`;
  return Number(row?.value ?? 0);
}
