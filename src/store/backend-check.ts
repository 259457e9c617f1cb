/** A backend /health reports on: what it is, and one cheap round trip to it. */
export interface BackendCheck {
  /** `database`, `blobs`. */
  role: string;
  /** `lmdb`, `postgresql`, `filesystem`, `s3`. */
  kind: string;
  /** Rejects when the backend cannot be reached. */
  ping(): Promise<void>;
  /**
   * What fails while it is down: `everything` (the node's own LMDB and files: another node serves better),
   * `files` (a shared S3 bucket: every node lacks it alike, while pages and metadata still work), `writes`
   * (a shared database: cached pages are still served).
   */
  neededFor: 'everything' | 'files' | 'writes';
}
