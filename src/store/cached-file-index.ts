/**
 * The index of verified upstream files kept in the blob store: one record (sha256, size, when fetched,
 * when last served) per file, `.metadata` and `.asc` of a project. Reads are async (the index may live in
 * a shared database); writes resolve once durable.
 */
import type { CachedFileRecord } from './records.js';

/** Which cached file: `variant` is 'file', 'metadata' or 'signature'. */
export interface CachedFileId {
  project: string;
  filename: string;
  variant: string;
}

export interface CachedFileIndex {
  get(id: CachedFileId): Promise<CachedFileRecord | undefined>;
  put(id: CachedFileId, record: CachedFileRecord): Promise<void>;
  /** Notes that the file was served at `at` (orders evictions). */
  touch(id: CachedFileId, record: CachedFileRecord, at: number): Promise<void>;
  delete(id: CachedFileId): Promise<void>;
  entries(): AsyncIterable<{ id: CachedFileId; record: CachedFileRecord }>;
  /** Bytes and files recorded. */
  totals(): Promise<{ bytes: number; files: number }>;
}
