/** Download locks of a single node: there is no other node to coordinate with, so every lock is granted. */
import type { DownloadLocks } from '../download-locks.js';

export class LocalDownloadLocks implements DownloadLocks {
  async tryLock(_key: string): Promise<() => Promise<void>> {
    return async () => {};
  }
}
