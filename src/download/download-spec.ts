/** What a FileDownload is given (the upstream body, what it should be, where it goes) and what it yields. */
import type { BlobStore } from '../store/blob-store.js';
import type { Expected } from './download-verifier.js';
import type { HashWorker } from './hash-worker.js';

export interface DownloadResult {
  sha256: string;
  size: number;
  /** False when the file was delivered but not kept. */
  kept: boolean;
}

export interface DownloadSpec {
  /** The body, as it arrives from the upstream. */
  body: AsyncIterable<Uint8Array>;
  /** Stops the upstream request (every client has gone). */
  abort(): void;
  expected: Expected;
  /** The response's own Content-Length, when it sent one. */
  contentLength: number | null;
  /** Largest accepted file, bytes (LARDER_MAX_FILE_SIZE). */
  maxBytes: number;
  blobs: BlobStore;
  /** Where large files are hashed, off the main thread; absent: on it. */
  hashWorker?: HashWorker;
  /** Whether there is room to keep the file at all; asked once at the start. */
  keep: boolean;
  /** Asked before each batch written to tmp/: false means "stop keeping" (the disk is below its reserve). */
  mayWrite(bytes: number): Promise<boolean>;
  /** Runs after the blob is committed and before clients get the last byte (record it here). */
  onVerified(result: { sha256: string; size: number }): Promise<void>;
  /** The file will be delivered but not kept; `reason` says why. */
  onNotKept(reason: Error): void;
}
