/**
 * The bytes of an upstream file while one node downloads it, for the other nodes of the same blob store:
 * parts, each the bytes from one offset on, under the sha256 the upstream lists for the file. Parts are not
 * blobs (no reader of blobs sees them) and are not verified: only the blob is. A part at an offset replaces
 * one at the same offset; parts written by different nodes may overlap, and hold the same bytes where they do.
 */
export interface DownloadPart {
  /** Where the part's first byte is in the file. */
  offset: number;
  size: number;
}

export interface DownloadParts {
  /** Stores `bytes` as the part of `sha256` starting at `offset`; visible to every node once it resolves. */
  put(sha256: string, offset: number, bytes: Uint8Array): Promise<void>;
  /** The parts of `sha256` starting at `from` or later, by offset. */
  list(sha256: string, from?: number): Promise<DownloadPart[]>;
  /** Bytes `start` to `end` (inclusive, counted within the part) of the part at `offset`; rejects when it is gone. */
  read(sha256: string, offset: number, range: { start: number; end: number }): Promise<Buffer>;
  /** Tells the downloading node that another node's client follows `sha256`'s download (it writes parts only then). */
  announce(sha256: string): Promise<void>;
  /** Whether a client of another node follows `sha256`'s download. */
  announced(sha256: string): Promise<boolean>;
  /** Removes every part of `sha256`, and the announcement. */
  remove(sha256: string): Promise<void>;
}
