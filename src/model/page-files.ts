/** Finding one file of a page by its filename without scanning a page of 100,000 files each time. */
import type { FileEntry, ProjectPage } from './documents.js';

export class PageFiles {
  private readonly byFilename = new WeakMap<ProjectPage, ReadonlyMap<string, FileEntry>>();

  /** The first of two entries with one filename, as a scan would find. */
  find(page: ProjectPage, filename: string): FileEntry | undefined {
    let files = this.byFilename.get(page);
    if (!files) {
      const byName = new Map<string, FileEntry>();
      for (const file of page.files) if (!byName.has(file.filename)) byName.set(file.filename, file);
      files = byName;
      this.byFilename.set(page, files);
    }
    return files.get(filename);
  }
}

/** Items grouped by a key in one pass, each group in input order. */
export function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
