/**
 * The download audit in two LMDB databases: `audit-downloads` keyed [at, writer, n] (time ranges: `--since`
 * and pruning) and `audit-by-project` keyed [project, at, writer, n] (one project's downloads). `writer` is
 * random per opening and `n` counts its records, so that records of the same millisecond never collide.
 */
import { randomBytes } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import type { AuditStore, DownloadQuery, DownloadRecord } from '../audit-store.js';
import type { Key } from './environment.js';
import { written } from './written.js';

/** Records removed per write transaction while pruning. */
const PRUNE_STEP = 10_000;

export class LmdbAuditStore implements AuditStore {
  private readonly byTime: Database<DownloadRecord, Key>;
  private readonly byProject: Database<DownloadRecord, Key>;
  private readonly writer = randomBytes(4).toString('hex');
  private count = 0;

  constructor(private readonly root: RootDatabase) {
    this.byTime = root.openDB({ name: 'audit-downloads' });
    this.byProject = root.openDB({ name: 'audit-by-project' });
  }

  async append(records: readonly DownloadRecord[]): Promise<void> {
    if (records.length === 0) return;
    await written(
      this.root.transaction(() => {
        for (const record of records) {
          const n = ++this.count;
          this.byTime.put([record.at, this.writer, n], record);
          this.byProject.put([record.project, record.at, this.writer, n], record);
        }
      }),
    );
  }

  async downloads({ since, project, limit }: DownloadQuery): Promise<DownloadRecord[]> {
    const range =
      project === undefined
        ? this.byTime.getRange({ start: [since], limit })
        : this.byProject.getRange({ start: [project, since], end: [`${project}\u0000`], limit });
    return Array.from(range, ({ value }) => value);
  }

  async prune(before: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const old = Array.from(this.byTime.getRange({ end: [before], limit: PRUNE_STEP }));
      if (old.length === 0) return removed;
      await written(
        this.root.transaction(() => {
          for (const { key, value } of old) {
            const [at, writer, n] = key as [number, string, number];
            this.byTime.remove(key);
            this.byProject.remove([value.project, at, writer, n]);
          }
        }),
      );
      removed += old.length;
    }
  }
}
