/**
 * File bytes, content-addressed by sha256 and immutable. A blob either does not exist or holds the whole,
 * verified content: it is written to a temporary file under `tmpDir` first and committed once verified.
 */
import type { Readable } from 'node:stream';

export interface BlobStore {
  /** Local directory for in-flight uploads and downloads (on the same filesystem as the blobs). */
  readonly tmpDir: string;
  /** Creates what the store needs (directories). */
  init(): Promise<void>;
  /** Removes what is left in `tmpDir`: everything (at start-up, before serving) or entries last modified before `olderThanMs`. */
  purgeTmp(olderThanMs?: number): Promise<number>;
  /** A fresh path in `tmpDir` for an in-flight write. */
  tmpPath(prefix?: string): string;
  /** Where the blob's bytes can be read on this machine (served with sendfile-like streaming). */
  pathFor(sha256: string): string;
  has(sha256: string): Promise<boolean>;
  /** Synchronous `has`, for the hot path of serving cached files. */
  hasSync(sha256: string): boolean;
  size(sha256: string): Promise<number | null>;
  /** When the blob was last written or committed again (ms), null when it does not exist; garbage collection spares young blobs. */
  modifiedAt(sha256: string): Promise<number | null>;
  /**
   * Makes the finished temporary file `tmpPath` (whose sha256 the caller has verified) the blob `sha256`,
   * durably. If the blob already exists the temporary file is dropped and the blob counts as new again.
   */
  commit(tmpPath: string, sha256: string): Promise<string>;
  /** Writes a small buffer (e.g. a `.metadata` file) as a blob. */
  writeBuffer(bytes: Buffer, sha256: string): Promise<string>;
  read(sha256: string, range?: { start: number; end: number }): Readable;
  remove(sha256: string): Promise<void>;
  /** Every blob, for garbage collection and statistics. */
  list(): AsyncIterable<{ sha256: string; size: number }>;
}
