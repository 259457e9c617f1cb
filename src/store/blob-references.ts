/** Which blobs the records still need: what eviction, purges, garbage collection and failed uploads must spare. */
import type { CachedFileIndex } from './cached-file-index.js';
import type { IndexReads } from './index-store.js';
import type { FileRecord } from './records.js';

/** The blobs one private file record needs: the file (its size known), its `.metadata` and `.asc` when it has them. */
export function blobsOfFile(file: FileRecord): { sha256: string; size: number | null }[] {
  const blobs: { sha256: string; size: number | null }[] = [{ sha256: file.sha256, size: file.size }];
  if (file.metadataSha256) blobs.push({ sha256: file.metadataSha256, size: null });
  if (file.signatureSha256) blobs.push({ sha256: file.signatureSha256, size: null });
  return blobs;
}

/** sha256 of every blob a private record needs (files, `.metadata`, `.asc`): never evicted or collected. */
export async function privateBlobs(index: IndexReads): Promise<Set<string>> {
  const shas = new Set<string>();
  for await (const f of index.allFiles()) for (const blob of blobsOfFile(f)) shas.add(blob.sha256);
  return shas;
}

/** sha256 of every blob a private record or a cached upstream file record needs. */
export async function referencedBlobs(index: IndexReads, cachedFiles: CachedFileIndex): Promise<Set<string>> {
  const shas = await privateBlobs(index);
  for await (const { record } of cachedFiles.entries()) shas.add(record.sha256);
  return shas;
}
