/**
 * Who may download an upstream file now, across every node sharing one blob store: at most one node
 * holds a key's lock. One node alone needs no coordination (its downloads are shared in memory).
 */
export interface DownloadLocks {
  /** A release function, or null when another node holds the lock for `key`. */
  tryLock(key: string): Promise<(() => Promise<void>) | null>;
}

/** Locks for a single node: always granted. */
export const singleNodeLocks: DownloadLocks = { tryLock: async () => async () => {} };
