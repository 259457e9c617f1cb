/**
 * The numbers behind /stats/, the metrics and `larder cache stats`: files and bytes of the private projects
 * and of the cached upstream files, each side counted on its own and per project.
 */
import type { Clock } from '../base/clock.js';
import type { CachedFileIndex } from './cached-file-index.js';
import type { IndexReads } from './index-store.js';
import { cachedFileProject } from './namespaced-cached-files.js';

export interface ProjectSize {
  name: string;
  /** Normalized name, for links. */
  normalized: string;
  files: number;
  bytes: number;
}

export interface SideStats {
  /** Per project, in no particular order. */
  projects: ProjectSize[];
  files: number;
  bytes: number;
}

export interface IndexStats {
  /** The files uploaded to this index. */
  private: SideStats;
  /** The upstream distribution files kept in the cache (bytes include their `.metadata` and `.asc`). */
  cached: SideStats;
}

class Tally {
  private readonly sizes = new Map<string, ProjectSize>();
  files = 0;
  bytes = 0;

  add(normalized: string, bytes: number, isFile: boolean, name: () => string): void {
    let entry = this.sizes.get(normalized);
    if (!entry) {
      entry = { name: name(), normalized, files: 0, bytes: 0 };
      this.sizes.set(normalized, entry);
    }
    entry.bytes += bytes;
    this.bytes += bytes;
    if (isFile) {
      entry.files++;
      this.files++;
    }
  }

  result(): SideStats {
    return { projects: [...this.sizes.values()], files: this.files, bytes: this.bytes };
  }
}

export async function collectStats(index: IndexReads, cachedFiles: CachedFileIndex): Promise<IndexStats> {
  const own = new Tally();
  const names = new Map<string, string>();
  for await (const file of index.allFiles()) {
    let name = names.get(file.project);
    if (name === undefined) {
      name = (await index.getProject(file.project))?.displayName ?? file.project;
      names.set(file.project, name);
    }
    const shown = name;
    own.add(file.project, file.size, true, () => shown);
  }
  const cached = new Tally();
  for await (const { id, record } of cachedFiles.entries()) {
    const project = cachedFileProject(id);
    cached.add(project, record.size, id.variant === 'file', () => project);
  }
  return { private: own.result(), cached: cached.result() };
}

/** Counts walk every record: anyone may ask for /stats/, so one count serves every request for `reuseMs` (a failed count is not reused). */
export function reusedStats(count: () => Promise<IndexStats>, clock: Clock, reuseMs = 10_000): () => Promise<IndexStats> {
  let last: { at: number; stats: Promise<IndexStats> } | null = null;
  return () => {
    const now = clock.now();
    if (!last || now - last.at >= reuseMs) {
      const counting = count();
      last = { at: now, stats: counting };
      counting.catch(() => {
        if (last?.stats === counting) last = null;
      });
    }
    return last.stats;
  };
}

/** Bytes and number of the private files. */
export async function privateFileTotals(index: IndexReads): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for await (const file of index.allFiles()) {
    bytes += file.size;
    files += 1;
  }
  return { bytes, files };
}

/**
 * `privateFileTotals`, counted again only once the index's last serial moved (files change only with a
 * serial), so that a scrape of /metrics does not read every file of a shared database each time.
 */
export function latestPrivateFileTotals(index: IndexReads): () => Promise<{ bytes: number; files: number }> {
  let counted: { serial: number; totals: Promise<{ bytes: number; files: number }> } | null = null;
  return async () => {
    const serial = await index.lastSerial();
    if (counted?.serial !== serial) {
      const totals = privateFileTotals(index);
      const entry = { serial, totals };
      counted = entry;
      totals.catch(() => {
        if (counted === entry) counted = null;
      });
    }
    return counted.totals;
  };
}
