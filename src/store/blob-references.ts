/** Which blobs the records still need: what eviction, purges, garbage collection and failed uploads must spare. */
import type { CachedFileIndex } from './cached-file-index.js';
import type { IndexReads } from './index-store.js';

/** sha256 of every blob a private record needs (files, `.metadata`, `.asc`): never evicted or collected. */
export function privateBlobs(index: IndexReads): Set<string> {
  const shas = new Set<string>();
  for (const f of index.allFiles()) {
    shas.add(f.sha256);
    if (f.metadataSha256) shas.add(f.metadataSha256);
    if (f.signatureSha256) shas.add(f.signatureSha256);
  }
  return shas;
}

/** sha256 of every blob a private record or a cached upstream file record needs. */
export function referencedBlobs(index: IndexReads, cachedFiles: CachedFileIndex): Set<string> {
  const shas = privateBlobs(index);
  for (const { record } of cachedFiles.entries()) shas.add(record.sha256);
  return shas;
}
