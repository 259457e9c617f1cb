/**
 * Offline maintenance of the data directory, safe while the server runs: cache statistics, purging cached
 * upstream data (never private data) and collecting orphan blobs and stale temporary files.
 */
import { privateFileTotals } from '../store/stats.js';
import type { Clock } from '../base/clock.js';
import { referencedBlobs } from '../store/blob-references.js';
import type { Storage } from '../store/storage.js';
import { normalizeName } from '../model/names.js';

export interface CacheStats {
  privateFiles: number;
  privateBytes: number;
  cachedFiles: number;
  cachedBytes: number;
  cachedPages: number;
  blobs: number;
  blobBytes: number;
}

export async function cacheStats({ index, documents, cachedFiles, blobs }: Storage): Promise<CacheStats> {
  const cached = await cachedFiles.totals();
  const own = await privateFileTotals(index);
  const stats: CacheStats = {
    privateFiles: own.files,
    privateBytes: own.bytes,
    cachedFiles: cached.files,
    cachedBytes: cached.bytes,
    cachedPages: documents.pageCount(),
    blobs: 0,
    blobBytes: 0,
  };
  for await (const blob of blobs.list()) {
    stats.blobs++;
    stats.blobBytes += blob.size;
  }
  return stats;
}

/**
 * Forgets cached upstream pages, documents and files — of the named projects, or all of them (then the
 * project list's state too) — and deletes their blobs unless a private record or another cached record
 * still needs them.
 */
export async function purgeCache(
  { index, documents, cachedFiles, blobs }: Storage,
  projects: string[],
): Promise<{ files: number; pages: number; bytes: number }> {
  const only = projects.length ? new Set<string>(projects.map(normalizeName)) : null;
  const result = { files: 0, pages: 0, bytes: 0 };
  const candidates = new Set<string>();
  const removals: Promise<void>[] = [];
  // Listed before anything is removed: the removals do not run under the listing.
  for (const { id, record } of await Array.fromAsync(cachedFiles.entries())) {
    if (only && !only.has(id.project)) continue;
    removals.push(cachedFiles.delete(id));
    candidates.add(record.sha256);
    result.files++;
    result.bytes += record.size;
  }
  for (const { id } of documents.entries()) {
    if (only && !only.has(id.project)) continue;
    removals.push(documents.delete(id));
    if (id.kind === 'page') result.pages++;
  }
  if (!only) removals.push(documents.deleteRootList());
  await Promise.all(removals);
  const needed = await referencedBlobs(index, cachedFiles);
  for (const sha of candidates) if (!needed.has(sha)) await blobs.remove(sha);
  return result;
}

/**
 * Deletes blobs no record names (left by a crash between blob and record, or by removals) and temporary
 * files older than `minAgeMs`. The age guard keeps a blob that an upload is committing right now.
 */
export async function collectGarbage(
  { index, cachedFiles, blobs }: Storage,
  clock: Clock,
  minAgeMs = 60 * 60_000,
): Promise<{ blobs: number; bytes: number; tmp: number }> {
  const needed = await referencedBlobs(index, cachedFiles);
  const cutoff = clock.now() - minAgeMs;
  const result = { blobs: 0, bytes: 0, tmp: 0 };
  for await (const blob of blobs.list()) {
    if (needed.has(blob.sha256)) continue;
    const modified = await blobs.modifiedAt(blob.sha256);
    if (modified === null || modified > cutoff) continue;
    await blobs.remove(blob.sha256);
    result.blobs++;
    result.bytes += blob.size;
  }
  result.tmp = await blobs.purgeTmp(cutoff);
  return result;
}
