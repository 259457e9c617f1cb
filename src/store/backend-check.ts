/** A backend /health reports on: what it is, and one cheap round trip to it. */
export interface BackendCheck {
  /** `database`, `blobs`. */
  role: string;
  /** `lmdb`, `postgresql`, `filesystem`, `s3`. */
  kind: string;
  /** Rejects when the backend cannot be reached. */
  ping(): Promise<void>;
  /** Whether serving reads needs it (an unreachable blob store fails every file; the database only writes). */
  neededForReads: boolean;
}
