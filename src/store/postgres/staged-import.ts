/**
 * The target of `PgIndexStore.importRecords`: its writes are staged in order and run in the import's
 * transaction before its next read and when it ends, so reads (queries in the same transaction) see
 * them; changes take serials and changelog entries as the LMDB store makes them. An import that fails
 * before anything ran takes no serial.
 */
import type { IndexImport } from '../index-store.js';
import type { AllowedName, ChangeAction, DeletedFilename, FileRecord, ProjectRecord, ReleaseRecord, TokenRecord, UserRecord } from '../records.js';
import type { Queryable } from './database.js';
import { SqlIndexReads } from './index-reads.js';
import { lockProject, recordChange } from './index-sql.js';
import { allowedRow, deletedRow, fileRow, projectRow, releaseRow, tokenRow, upsert, userRow } from './rows.js';

/** Writes staged in order, run before the next read and at the end. */
class Staged {
  private steps: ((tx: Queryable) => Promise<unknown>)[] = [];

  constructor(private readonly tx: Queryable) {}

  add(step: (tx: Queryable) => Promise<unknown>): void {
    this.steps.push(step);
  }

  async flush(): Promise<void> {
    const steps = this.steps;
    this.steps = [];
    for (const step of steps) await step(this.tx);
  }
}

export class StagedImport extends SqlIndexReads implements IndexImport {
  private readonly staged: Staged;
  private readonly scopes = new Set<string>();
  private readonly locked = new Set<string>();

  constructor(
    tx: Queryable,
    private readonly now: () => Date,
  ) {
    const staged = new Staged(tx);
    super(async (_operation, read) => {
      await staged.flush();
      return read(tx);
    });
    this.staged = staged;
  }

  /** Runs what is left; the scopes the import changed. */
  async finish(): Promise<string[]> {
    await this.staged.flush();
    return [...this.scopes];
  }

  private stage(scope: string, step: (tx: Queryable) => Promise<unknown>): void {
    this.scopes.add(scope);
    this.staged.add(step);
  }

  private change(tx: Queryable, project: string, action: ChangeAction, version: string | null = null, filename: string | null = null) {
    return recordChange(tx, { project, action, user: null, time: this.now().toISOString(), version, filename });
  }

  addProject(record: ProjectRecord): void {
    this.stage(`project:${record.name}`, async (tx) => {
      await upsert(tx, projectRow({ ...record, serial: 0 }));
      this.locked.add(record.name);
      await this.change(tx, record.name, 'create project');
    });
  }

  addRelease(record: ReleaseRecord): void {
    this.stage(`project:${record.project}`, (tx) => upsert(tx, releaseRow(record)));
  }

  addFile(record: FileRecord): void {
    this.stage(`project:${record.project}`, async (tx) => {
      // A row lock lasts until the transaction ends: once per project.
      if (!this.locked.has(record.project)) await lockProject(tx, record.project);
      this.locked.add(record.project);
      await upsert(tx, fileRow(record));
      await this.change(tx, record.project, 'add file', record.version, record.filename);
    });
  }

  reserveFilename(record: DeletedFilename): void {
    this.stage(`project:${record.project}`, (tx) => upsert(tx, deletedRow(record.project, record.filename, record.deletedAt)));
  }

  putAllowedName(record: AllowedName): void {
    this.stage(`allowed:${record.name}`, (tx) => upsert(tx, allowedRow(record)));
  }

  putUser(user: UserRecord): void {
    this.stage(`user:${user.name}`, (tx) => upsert(tx, userRow(user)));
  }

  putToken(token: TokenRecord): void {
    this.stage(`token:${token.hash}`, (tx) => upsert(tx, tokenRow(token)));
  }
}
