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

export function collectStats(index: IndexReads, cachedFiles: CachedFileIndex): IndexStats {
  const own = new Tally();
  for (const file of index.allFiles()) own.add(file.project, file.size, true, () => index.getProject(file.project)?.displayName ?? file.project);
  const cached = new Tally();
  for (const { id, record } of cachedFiles.entries()) {
    const project = cachedFileProject(id);
    cached.add(project, record.size, id.variant === 'file', () => project);
  }
  return { private: own.result(), cached: cached.result() };
}

/** Counts walk every record: anyone may ask for /stats/, so one count serves every request for `reuseMs`. */
export function reusedStats(count: () => IndexStats, clock: Clock, reuseMs = 10_000): () => IndexStats {
  let last: { at: number; stats: IndexStats } | null = null;
  return () => {
    const now = clock.now();
    if (!last || now - last.at >= reuseMs) last = { at: now, stats: count() };
    return last.stats;
  };
}

/** Bytes and number of the private files. */
export function privateFileTotals(index: IndexReads): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const file of index.allFiles()) {
    bytes += file.size;
    files += 1;
  }
  return { bytes, files };
}
