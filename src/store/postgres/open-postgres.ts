/**
 * Opens the shared records of a node in PostgreSQL: migrates the schema, starts hearing the other nodes'
 * changes (which empty this node's read caches), and gives the private index, the policy, the cached-file
 * records, the mirror sets and the cross-node download locks. The caller composes these with the per-node
 * stores (page cache, blob store) into a `Storage`.
 */
import type { DownloadLocks } from '../download-locks.js';
import { PgAuditStore } from './pg-audit-store.js';
import type { CacheSizes } from './cached-index-reads.js';
import { ChangeFeed } from './change-feed.js';
import { ChangeWriter } from './change-writer.js';
import { PgDatabase, type PgDatabaseOptions } from './database.js';
import { migrate } from './migrations.js';
import { PgCachedFileIndex } from './pg-cached-file-index.js';
import { PgDownloadLocks } from './pg-download-locks.js';
import { PgIndexStore } from './pg-index-store.js';
import { PgMirrorSetStore } from './pg-mirror-set-store.js';
import { PgPolicyStore } from './pg-policy-store.js';
import { PgAdvisoryStore } from './pg-advisory-store.js';
import { PgPublisherStore } from './pg-publisher-store.js';

export interface OpenPostgresOptions extends PgDatabaseOptions {
  /** The clock of the records' times. */
  clock?: () => Date;
  /** False: no LISTEN, so nothing is cached (every read is a query). */
  listen?: boolean;
  /** Bounds of the per-node read caches. */
  cacheSizes?: CacheSizes;
  /** How often the last-access times of cached files are written (1 s). */
  touchFlushMs?: number;
}

export interface PostgresBackends {
  index: PgIndexStore;
  policy: PgPolicyStore;
  advisories: PgAdvisoryStore;
  /** The records of cached upstream files, shared by the nodes of one blob store. */
  cachedFiles: PgCachedFileIndex;
  /** The mirror sets, whose files no node's eviction may drop. */
  mirrorSets: PgMirrorSetStore;
  downloadLocks: DownloadLocks;
  /** Trusted publishers, exchanged OIDC tokens and minted upload tokens. */
  publishers: PgPublisherStore;
  /** The download audit, written and read by every node. */
  audit: PgAuditStore;
  database: PgDatabase;
  /** What empties this node's read caches when any node changes something. */
  changes: ChangeFeed;
  close(): Promise<void>;
}

export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PostgresBackends> {
  const database = new PgDatabase(url, options);
  try {
    await database.run('migrate', () => migrate(database), database.bulkTimeoutMs);
    const feed = new ChangeFeed(database);
    await feed.start(options.listen);
    const writer = new ChangeWriter(database, feed);
    const cachedFiles = new PgCachedFileIndex(database, options.touchFlushMs);
    const downloadLocks = new PgDownloadLocks(database);
    let closing: Promise<void> | undefined;
    return {
      index: new PgIndexStore(writer, options.clock, options.cacheSizes),
      policy: new PgPolicyStore(writer),
      advisories: new PgAdvisoryStore(writer),
      cachedFiles,
      mirrorSets: new PgMirrorSetStore(writer),
      downloadLocks,
      publishers: new PgPublisherStore(writer),
      audit: new PgAuditStore(database),
      database,
      changes: feed,
      close() {
        closing ??= (async () => {
          await cachedFiles.close();
          await feed.close();
          await downloadLocks.close();
          await database.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    await database.close().catch(() => {});
    throw database.unavailable(err);
  }
}
