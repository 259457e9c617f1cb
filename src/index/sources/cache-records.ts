/** Where the `cached` source keeps what it fetched: the LMDB databases and their record shapes. */
import type { Database } from 'lmdb';
import type { MetaStore, StoreKey } from '../../store/meta-store.js';
import type { Validators } from './upstream-source.js';

/** A cached page or JSON document (`value` null = the upstream said 404). Keys: ['page'|'releases', name], ['root']. */
export interface DocEntry<T> {
  value: T | null;
  fetchedAt: number;
  validators: Validators;
}

/** A verified upstream file in the blob store. Key: [project, filename, variant]. */
export interface CachedFileRecord {
  sha256: string;
  size: number;
  fetchedAt: number;
  lastAccess: number;
}

export interface CacheDbs {
  docs: Database<DocEntry<unknown>, StoreKey>;
  files: Database<CachedFileRecord, StoreKey>;
}

export function openCacheDbs(meta: MetaStore): CacheDbs {
  return { docs: meta.openDB<DocEntry<unknown>>('upstream-docs'), files: meta.openDB<CachedFileRecord>('upstream-files') };
}

/** sha256 of every blob a private record needs (files, `.metadata`, `.asc`): never evicted or collected. */
export function privateBlobs(meta: MetaStore): Set<string> {
  const shas = new Set<string>();
  for (const f of meta.allFiles()) {
    shas.add(f.sha256);
    if (f.metadataSha256) shas.add(f.metadataSha256);
    if (f.signatureSha256) shas.add(f.signatureSha256);
  }
  return shas;
}
