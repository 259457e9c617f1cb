/**
 * The cached-file records of an upstream other than the first, kept in the one cached-file index under
 * project keys `<upstream>/<project>` ('/' is in no project name): the same file name from two upstreams
 * never mixes, while eviction, garbage collection and the storage totals still see every cached file.
 */
import type { CachedFileId, CachedFileIndex } from './cached-file-index.js';
import type { CachedFileRecord } from './records.js';

/** The project a record of the shared index belongs to, whichever upstream it came from. */
export function cachedFileProject(id: CachedFileId): string {
  return id.project.slice(id.project.lastIndexOf('/') + 1);
}

export class NamespacedCachedFiles implements CachedFileIndex {
  private readonly prefix: string;

  constructor(
    private readonly inner: CachedFileIndex,
    upstream: string,
  ) {
    this.prefix = `${upstream}/`;
  }

  private outer(id: CachedFileId): CachedFileId {
    return { ...id, project: this.prefix + id.project };
  }

  get(id: CachedFileId): Promise<CachedFileRecord | undefined> {
    return this.inner.get(this.outer(id));
  }

  put(id: CachedFileId, record: CachedFileRecord): Promise<void> {
    return this.inner.put(this.outer(id), record);
  }

  touch(id: CachedFileId, record: CachedFileRecord, at: number): Promise<void> {
    return this.inner.touch(this.outer(id), record, at);
  }

  delete(id: CachedFileId): Promise<void> {
    return this.inner.delete(this.outer(id));
  }

  async *entries(): AsyncIterable<{ id: CachedFileId; record: CachedFileRecord }> {
    for await (const { id, record } of this.inner.entries()) {
      if (id.project.startsWith(this.prefix)) yield { id: { ...id, project: id.project.slice(this.prefix.length) }, record };
    }
  }

  async totals(): Promise<{ bytes: number; files: number }> {
    let bytes = 0;
    let files = 0;
    for await (const { record } of this.entries()) {
      bytes += record.size;
      files++;
    }
    return { bytes, files };
  }
}
