/** Every record of one kind a storage holds, read through the storage interfaces, keyed by a JSON name of the record. */
import type { Storage } from '../../src/store/storage.js';

export const RECORD_KINDS = [
  'projects',
  'releases',
  'files',
  'deleted-files',
  'allowed-names',
  'users',
  'tokens',
  'changelog',
  'upstream-docs',
  'upstream-files',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

const named = async <T>(items: Iterable<T> | AsyncIterable<T>, name: (item: T) => unknown, value: (item: T) => unknown = (item) => item) =>
  new Map((await Array.fromAsync(items)).map((item) => [JSON.stringify(name(item)), value(item)] as const));

export async function storedRecords(storage: Pick<Storage, 'index' | 'documents' | 'cachedFiles'>, kind: RecordKind): Promise<Map<string, unknown>> {
  if (kind === 'upstream-docs')
    return named(
      storage.documents.entries(),
      (d) => d.id,
      (d) => d.entry,
    );
  if (kind === 'upstream-files')
    return named(
      storage.cachedFiles.entries(),
      (f) => f.id,
      (f) => f.record,
    );
  return storage.index.readSnapshot(async (view) => {
    switch (kind) {
      case 'projects':
        return named(view.projects(), (p) => p.name);
      case 'releases':
        return named(view.releases(), (r) => [r.project, r.version]);
      case 'files':
        return named(view.files(), (f) => [f.project, f.filename]);
      case 'deleted-files':
        return named(view.deletedFilenames(), (d) => [d.project, d.filename]);
      case 'allowed-names':
        return named(view.allowedNames(), (a) => a.name);
      case 'users':
        return named(view.users(), (u) => u.name);
      case 'tokens':
        return named(view.tokens(), (t) => t.hash);
      case 'changelog':
        return named(view.changelog(), (c) => c.serial);
    }
  });
}
