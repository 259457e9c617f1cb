/**
 * The download audit in the LMDB database `audit-downloads`, keyed [at, writer, n]: `--since` and pruning
 * are range reads by time, one project's downloads are the time range filtered (a rare query; a second index
 * by project would double the cost of every write). `writer` is random per opening and `n` counts its records,
 * so that records of the same millisecond never collide. A value is the record's other fields as an array
 * (a third of the cost of writing it as an object).
 */
import { randomBytes } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import type { AuditStore, DownloadQuery, DownloadRecord } from '../audit-store.js';
import type { Key } from './environment.js';
import { written } from './written.js';

/** Records removed per write transaction while pruning. */
const PRUNE_STEP = 10_000;

type Stored = [client: string, user: string, token: string | null, project: string, version: string | null, filename: string, sha256: string | null];

const stored = (r: DownloadRecord): Stored => [r.client, r.user, r.token, r.project, r.version, r.filename, r.sha256];

function recordOf(key: Key, value: Stored): DownloadRecord {
  const [client, user, token, project, version, filename, sha256] = value;
  return { at: (key as [number])[0], client, user, token, project, version, filename, sha256 };
}

export class LmdbAuditStore implements AuditStore {
  private readonly db: Database<Stored, Key>;
  private readonly writer = randomBytes(4).toString('hex');
  private count = 0;

  constructor(root: RootDatabase) {
    this.db = root.openDB({ name: 'audit-downloads' });
  }

  async append(records: readonly DownloadRecord[]): Promise<void> {
    if (records.length === 0) return;
    await written(
      this.db.transaction(() => {
        for (const record of records) this.db.put([record.at, this.writer, ++this.count], stored(record));
      }),
    );
  }

  async downloads({ since, project, limit }: DownloadQuery): Promise<DownloadRecord[]> {
    const found: DownloadRecord[] = [];
    for (const { key, value } of this.db.getRange({ start: [since] })) {
      if (project !== undefined && value[3] !== project) continue;
      found.push(recordOf(key, value));
      if (found.length >= limit) break;
    }
    return found;
  }

  async prune(before: number): Promise<number> {
    let removed = 0;
    for (;;) {
      // Read inside the write transaction: a read outside it may see the snapshot before the last step.
      const step = await written(
        this.db.transaction(() => {
          const old = Array.from(this.db.getKeys({ end: [before], limit: PRUNE_STEP }));
          for (const key of old) this.db.remove(key);
          return old.length;
        }),
      );
      removed += step;
      if (step < PRUNE_STEP) return removed;
    }
  }
}
