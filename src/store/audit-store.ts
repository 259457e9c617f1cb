/**
 * The download audit's records: one per file download served (docs/audit.md). Written in batches, read
 * by time range (oldest first), removed by age. On PostgreSQL every node writes to and reads the same table.
 */

export interface DownloadRecord {
  /** When it was served, ms since the epoch. */
  at: number;
  /** The client's address (the peer, or the first X-Forwarded-For address behind a trusted proxy). */
  client: string;
  /** The user the credentials proved (a token's owner), or `anonymous`. */
  user: string;
  /** The id of the API token used, null when none. */
  token: string | null;
  /** Normalized project name. */
  project: string;
  /** From the file name; null when it names none. */
  version: string | null;
  filename: string;
  /** null when not known (an upstream file the page lists without a sha256, served while it downloads). */
  sha256: string | null;
}

export interface DownloadQuery {
  /** Records at or after this time (ms). */
  since: number;
  /** Only this normalized project; all when absent. */
  project?: string;
  /** At most this many, the oldest first. */
  limit: number;
}

export interface AuditStore {
  /** Stores the records in one write; resolves once durable. */
  append(records: readonly DownloadRecord[]): Promise<void>;
  /** The records the query selects, oldest first. */
  downloads(query: DownloadQuery): Promise<DownloadRecord[]>;
  /** Removes the records older than `before` (ms); how many went. */
  prune(before: number): Promise<number>;
}
