/**
 * Opens the shared records of a node in PostgreSQL: migrates the schema, loads this node's views of the
 * private index, the policy, the cached-file records and the mirror sets, follows the other nodes'
 * changes, and gives the cross-node download locks. The caller composes these with the per-node stores
 * (page cache, blob store) into a `Storage`.
 */
import type { DownloadLocks } from '../download-locks.js';
import { PgDatabase, type PgDatabaseOptions } from './database.js';
import { migrate } from './migrations.js';
import { PgCachedFileIndex } from './pg-cached-file-index.js';
import { PgDownloadLocks } from './pg-download-locks.js';
import { PgIndexStore } from './pg-index-store.js';
import { PgMirrorSetStore } from './pg-mirror-set-store.js';
import { PgPolicyStore } from './pg-policy-store.js';
import { Replica, type ReplicaOptions } from './replica.js';
import { RevisionWriter, type RevisionWriterOptions } from './revision-writer.js';

export interface OpenPostgresOptions extends PgDatabaseOptions, ReplicaOptions, RevisionWriterOptions {
  /** The clock of the records' times. */
  clock?: () => Date;
}

export interface PostgresBackends {
  index: PgIndexStore;
  policy: PgPolicyStore;
  /** The records of cached upstream files, shared by the nodes of one blob store. */
  cachedFiles: PgCachedFileIndex;
  /** The mirror sets, whose files no node's eviction may drop. */
  mirrorSets: PgMirrorSetStore;
  downloadLocks: DownloadLocks;
  database: PgDatabase;
  close(): Promise<void>;
}

export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PostgresBackends> {
  const database = new PgDatabase(url, options);
  try {
    await database.run('migrate', () => migrate(database), database.reloadTimeoutMs);
    const index = new PgIndexStore(options.clock);
    const policy = new PgPolicyStore();
    const cachedFiles = new PgCachedFileIndex(database);
    const mirrorSets = new PgMirrorSetStore();
    const replica = new Replica(database, [index, policy, cachedFiles, mirrorSets], options);
    const writer = new RevisionWriter(database, replica, options);
    index.attach(replica, writer);
    policy.attach(writer);
    cachedFiles.attach(writer);
    mirrorSets.attach(writer);
    await replica.start();
    const downloadLocks = new PgDownloadLocks(database);
    let closing: Promise<void> | undefined;
    return {
      index,
      policy,
      cachedFiles,
      mirrorSets,
      downloadLocks,
      database,
      close() {
        closing ??= (async () => {
          await replica.close();
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
