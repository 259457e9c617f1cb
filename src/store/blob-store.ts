/**
 * File bytes, content-addressed by sha256 and immutable. A blob either does not exist or holds the whole,
 * verified content: it is written to a temporary file under `tmpDir` first and committed once verified.
 */
import type { Readable } from 'node:stream';
import type { DownloadParts } from './download-parts.js';

/** A commit begun while its file is still being written (see `BlobStore.beginCommit`). */
export interface GrowingCommit {
  /** The file's first `bytes` are written, and stay as written. */
  grew(bytes: number): void;
  /** The file is whole (`size` bytes) and verified to be the blob: makes it the blob. Rejects when it could not. */
  finish(size: number): Promise<void>;
  /** The file will not become the blob: drops what was sent. */
  abandon(): void;
}

export interface BlobStore {
  /** Where a download in flight is shared with the other nodes of this store; null when there are none to share with. */
  readonly parts: DownloadParts | null;
  /** Local directory for in-flight uploads and downloads (on the same filesystem as the blobs when they are local). */
  readonly tmpDir: string;
  /** Creates what the store needs (directories). */
  init(): Promise<void>;
  /** Removes what is left in `tmpDir`: everything (at start-up, before serving) or entries last modified before `olderThanMs`. */
  purgeTmp(olderThanMs?: number): Promise<number>;
  /** A fresh path in `tmpDir` for an in-flight write. */
  tmpPath(prefix?: string): string;
  /** Where the blob's bytes lie on this machine's disk (served with sendfile-like streaming), or null when the store keeps them elsewhere. */
  localPath(sha256: string): string | null;
  has(sha256: string): Promise<boolean>;
  /** True when the blob is known to exist without a round trip (a local stat, or a recent sighting); false means "ask `has`". */
  hasSync(sha256: string): boolean;
  size(sha256: string): Promise<number | null>;
  /** When the blob was last written or committed again (ms), null when it does not exist; garbage collection spares young blobs. */
  modifiedAt(sha256: string): Promise<number | null>;
  /**
   * Makes the finished temporary file `tmpPath` (whose sha256 the caller has verified) the blob `sha256`,
   * durably; the temporary file is gone afterwards. If the blob already exists it counts as new again.
   */
  commit(tmpPath: string, sha256: string): Promise<void>;
  /**
   * For a store that keeps blobs elsewhere: starts sending `tmpPath`, which is still being written and is
   * expected to become the blob `sha256`, so that little is left to send once it is verified. The temporary
   * file stays the caller's. Null when the store gains nothing from it (then `commit` when it is done).
   */
  beginCommit(tmpPath: string, sha256: string): GrowingCommit | null;
  /** Writes a small buffer (e.g. a `.metadata` file) as a blob. */
  writeBuffer(bytes: Buffer, sha256: string): Promise<void>;
  /** The blob's bytes, or the inclusive byte `range`; rejects before any byte when the blob is missing or the store unreachable. */
  read(sha256: string, range?: { start: number; end: number }): Promise<Readable>;
  /** A URL a client may fetch the blob from directly for a while, or null when the store offers none. */
  directUrl(sha256: string, download: { filename: string; contentType: string }): Promise<string | null>;
  remove(sha256: string): Promise<void>;
  /** Every blob, for garbage collection and statistics. */
  list(): AsyncIterable<{ sha256: string; size: number }>;
  /** One cheap round trip to where the blobs are kept (for /health); rejects when it is unreachable. */
  ping(): Promise<void>;
}
