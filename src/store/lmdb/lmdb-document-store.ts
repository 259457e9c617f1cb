/**
 * The upstream document cache in the LMDB database `upstream-docs`. Keys: ['page', project],
 * ['releases', project], ['release', project, version], and ['root'] for the project list's state.
 */
import type { Database, RootDatabase } from 'lmdb';
import type { CachedDocument, RootListRecord } from '../records.js';
import type { CachedDocumentId, UpstreamDocumentStore } from '../upstream-document-store.js';
import { after, type Key } from './environment.js';
import { written } from './written.js';

const ROOT_KEY: Key = ['root'];

const keyOf = (id: CachedDocumentId): Key => (id.kind === 'release' ? [id.kind, id.project, id.version] : [id.kind, id.project]);

/** The document a key names, or null for the root entry (and anything else). */
function idOf(key: Key): CachedDocumentId | null {
  if (!Array.isArray(key)) return null;
  const [kind, project, version] = key.map(String);
  if ((kind === 'page' || kind === 'releases') && key.length === 2) return { kind, project: project! };
  if (kind === 'release' && key.length === 3) return { kind, project: project!, version: version! };
  return null;
}

export class LmdbDocumentStore implements UpstreamDocumentStore {
  private readonly db: Database<CachedDocument<unknown> | RootListRecord, Key>;

  /** `name`: the database; another upstream than the first keeps its documents in one of its own. */
  constructor(root: RootDatabase, name = 'upstream-docs') {
    this.db = root.openDB({ name });
  }

  get<T>(id: CachedDocumentId): CachedDocument<T> | undefined {
    return this.db.get(keyOf(id)) as CachedDocument<T> | undefined;
  }

  async put<T>(id: CachedDocumentId, entry: CachedDocument<T>): Promise<void> {
    await written(this.db.put(keyOf(id), entry));
  }

  async delete(id: CachedDocumentId): Promise<void> {
    await written(this.db.remove(keyOf(id)));
  }

  *entries(): Iterable<{ id: CachedDocumentId; entry: CachedDocument<unknown> }> {
    for (const { key, value } of this.db.getRange()) {
      const id = idOf(key);
      if (id) yield { id, entry: value as CachedDocument<unknown> };
    }
  }

  *pages(): Iterable<{ project: string; entry: CachedDocument<unknown> }> {
    for (const { key, value } of this.db.getRange({ start: ['page'], end: after('page') })) {
      yield { project: String((key as string[])[1]), entry: value as CachedDocument<unknown> };
    }
  }

  pageCount(): number {
    return this.db.getCount({ start: ['page'], end: after('page') });
  }

  getRootList(): RootListRecord | undefined {
    return this.db.get(ROOT_KEY) as RootListRecord | undefined;
  }

  async putRootList(record: RootListRecord): Promise<void> {
    await written(this.db.put(ROOT_KEY, record));
  }

  async deleteRootList(): Promise<void> {
    await written(this.db.remove(ROOT_KEY));
  }
}
