/**
 * Offline maintenance of the data directory, safe while the server runs: cache statistics, purging cached
 * upstream data (never private data) and collecting orphan blobs and stale temporary files.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobStore } from '../store/blob-store.js';
import type { MetaStore } from '../store/meta-store.js';
import { openCacheDbs, privateBlobs } from './sources/cache-records.js';
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

export async function cacheStats(meta: MetaStore, blobs: BlobStore): Promise<CacheStats> {
  const { docs, files } = openCacheDbs(meta);
  const stats: CacheStats = { privateFiles: 0, privateBytes: 0, cachedFiles: 0, cachedBytes: 0, cachedPages: 0, blobs: 0, blobBytes: 0 };
  for (const f of meta.allFiles()) {
    stats.privateFiles++;
    stats.privateBytes += f.size;
  }
  for (const { value } of files.getRange()) {
    stats.cachedFiles++;
    stats.cachedBytes += value.size;
  }
  for (const { key } of docs.getRange()) if (Array.isArray(key) && key[0] === 'page') stats.cachedPages++;
  for await (const blob of blobs.list()) {
    stats.blobs++;
    stats.blobBytes += blob.size;
  }
  return stats;
}

/**
 * Forgets cached upstream pages, documents and files — of the named projects, or all of them — and
 * deletes their blobs unless a private record or another cached record still needs them.
 */
export async function purgeCache(meta: MetaStore, blobs: BlobStore, projects: string[]): Promise<{ files: number; pages: number; bytes: number }> {
  const { docs, files } = openCacheDbs(meta);
  const only = projects.length ? new Set<string>(projects.map(normalizeName)) : null;
  const result = { files: 0, pages: 0, bytes: 0 };
  const candidates = new Set<string>();
  await meta.transactionAsync(() => {
    for (const { key, value } of files.getRange()) {
      if (only && !only.has(String((key as unknown[])[0]))) continue;
      files.removeSync(key);
      candidates.add(value.sha256);
      result.files++;
      result.bytes += value.size;
    }
    for (const { key } of docs.getRange()) {
      const [kind, name] = key as unknown[];
      if (kind === 'root' ? only !== null : only && !only.has(String(name))) continue;
      docs.removeSync(key);
      if (kind === 'page') result.pages++;
    }
  });
  const needed = privateBlobs(meta);
  for (const { value } of files.getRange()) needed.add(value.sha256);
  for (const sha of candidates) if (!needed.has(sha)) await blobs.remove(sha);
  return result;
}

/**
 * Deletes blobs no record names (left by a crash between blob and record, or by removals) and temporary
 * files older than `minAgeMs`. The age guard keeps a blob that an upload is committing right now.
 */
export async function collectGarbage(meta: MetaStore, blobs: BlobStore, minAgeMs = 60 * 60_000): Promise<{ blobs: number; bytes: number; tmp: number }> {
  const { files } = openCacheDbs(meta);
  const needed = privateBlobs(meta);
  for (const { value } of files.getRange()) needed.add(value.sha256);
  const cutoff = Date.now() - minAgeMs;
  const result = { blobs: 0, bytes: 0, tmp: 0 };
  for await (const blob of blobs.list()) {
    if (needed.has(blob.sha256)) continue;
    const info = await stat(blobs.pathFor(blob.sha256)).catch(() => null);
    if (!info || info.mtimeMs > cutoff) continue;
    await blobs.remove(blob.sha256);
    result.blobs++;
    result.bytes += blob.size;
  }
  for (const name of await readdir(blobs.tmpDir).catch(() => [] as string[])) {
    const path = join(blobs.tmpDir, name);
    const info = await stat(path).catch(() => null);
    if (info && info.mtimeMs <= cutoff) {
      await rm(path, { recursive: true, force: true });
      result.tmp++;
    }
  }
  return result;
}
