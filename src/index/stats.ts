/** The numbers behind /stats/, the metrics and `larder cache stats`: bytes per project and in total, over the private files. */
import type { IndexReads, IndexStore } from '../store/index-store.js';

export interface IndexStats {
  projects: { name: string; size: number }[];
  total: number;
}

export function collectStats(meta: IndexStore): IndexStats {
  const sizes = new Map<string, number>();
  let total = 0;
  for (const file of meta.allFiles()) {
    sizes.set(file.project, (sizes.get(file.project) ?? 0) + file.size);
    total += file.size;
  }
  const projects = [...sizes].map(([name, size]) => ({ name: meta.getProject(name)?.displayName ?? name, size }));
  return { projects, total };
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
