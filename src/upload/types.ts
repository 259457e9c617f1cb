/** Shapes shared by the upload pipeline: receive → validate → (dist-metadata) → store. */
import type { ProjectName } from '../model/names.js';
import type { ReleaseMetadata } from '../model/documents.js';

/** A file part of the upload, streamed to a temporary file and hashed on the way. */
export interface ReceivedFile {
  /** Temporary file; the caller moves or copies it before calling `RawUpload.cleanup()`. */
  path: string;
  /** The filename parameter exactly as the client sent it (quoting undone, no path stripping). */
  filename: string;
  /** The part's Content-Type header, null when the part had none. */
  contentType: string | null;
  size: number;
  /** Lowercase hex digests. */
  md5: string;
  sha256: string;
  blake2b_256: string;
}

/** The multipart body as received: every text field (repeats kept, in order) and the two file parts. */
export interface RawUpload {
  fields: Record<string, string[]>;
  content?: ReceivedFile;
  signature?: ReceivedFile;
  /** Removes the temporary files. Safe to call more than once. */
  cleanup(): Promise<void>;
}

export interface ReceiveOptions {
  /** Directory for the temporary files; must exist. */
  tmpDir: string;
  /** Largest accepted `content` file, in bytes (→ 413). */
  maxFileSize: number;
  /** Total bytes of all text fields (→ 413). Default 20 MiB. */
  maxFieldsSize?: number;
  /** Largest number of text fields (→ 413). Default 1000. */
  maxFields?: number;
  /** Largest accepted `gpg_signature` file, in bytes (→ 413). Default 1 MiB. */
  maxSignatureSize?: number;
  /**
   * The parsed query string (e.g. Koa's `ctx.query`), for `?:action=file_upload`. When left out it is
   * read from `req.url`. Used only when the form itself has no `:action` field.
   */
  query?: Record<string, string | string[] | undefined>;
}

export type FileType = 'sdist' | 'bdist_wheel';

/** An upload that passed every check that needs no look inside the archive. */
export interface ValidatedUpload {
  /** The `name` field as sent (becomes the display name). */
  name: string;
  project: ProjectName;
  /** The `version` field as sent. */
  version: string;
  filename: string;
  filetype: FileType;
  /** `source` for sdists, the client's Python tag for wheels. */
  pyversion: string;
  comment: string | null;
  metadata: ReleaseMetadata;
  requiresPython: string | null;
  content: ReceivedFile;
  signature: ReceivedFile | null;
}
