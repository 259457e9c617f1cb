/**
 * Cross-node single-flight of upstream downloads: at most one node downloads a given file at a time.
 * The lock is advisory; when the coordinating backend cannot be reached, locks are granted (each node then
 * downloads for itself) rather than waited for.
 */
export interface DownloadLocks {
  /** A function releasing the lock, or null when another holder (another node) has it now. Never waits for the holder. */
  tryLock(key: string): Promise<(() => Promise<void>) | null>;
}
