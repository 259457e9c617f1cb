/**
 * Records file downloads off the hot path: `record` is O(1) and never waits; the records are written in
 * batches every `flushMs`. The buffer is bounded: while the store cannot be written, records beyond
 * `maxPending` are dropped and counted, and the downloads go on. Records older than the retention are
 * pruned at most every `pruneEveryMs`, as told by the clock. `close` writes what is left.
 */
import type { Clock } from '../base/clock.js';
import { versionFromFilename } from '../model/filenames.js';
import type { AuditStore, DownloadRecord } from '../store/audit-store.js';

/** A download as the file route reports it; the version is read from the file name when written. */
export type ServedDownload = Omit<DownloadRecord, 'version'>;

export type LossReason = 'buffer_full' | 'store_failed';

/** What the audit tells the metrics and the log. */
export interface AuditEvents {
  written(count: number): void;
  lost(count: number, reason: LossReason): void;
  /** Writing failed after it had worked (or at the first write): once per burst of failures. */
  failing(err: Error): void;
  /** Writing works again after a burst of failures that lost `lost` records. */
  recovered(lost: number): void;
  pruneFailed(err: Error): void;
}

export interface DownloadAuditOptions {
  retentionMs: number;
  flushMs?: number;
  /** Records kept in memory at most (waiting for a write, or kept after a failed one). */
  maxPending?: number;
  /** Records per write. */
  batchSize?: number;
  pruneEveryMs?: number;
}

export class DownloadAudit {
  private pending: ServedDownload[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private readonly pruneTimer: NodeJS.Timeout;
  private nextPrune = Number.NEGATIVE_INFINITY;
  /** Records lost since writing last worked; null while it works. */
  private lostInBurst: number | null = null;
  private closed = false;
  private readonly flushMs: number;
  private readonly maxPending: number;
  private readonly batchSize: number;
  private readonly pruneEveryMs: number;

  constructor(
    private readonly store: AuditStore,
    private readonly clock: Clock,
    private readonly events: AuditEvents,
    private readonly options: DownloadAuditOptions,
  ) {
    this.flushMs = options.flushMs ?? 1000;
    this.maxPending = options.maxPending ?? 10_000;
    this.batchSize = options.batchSize ?? 1000;
    this.pruneEveryMs = options.pruneEveryMs ?? 3_600_000;
    this.pruneTimer = setInterval(() => void this.pruneIfDue(), Math.min(this.pruneEveryMs, 3_600_000));
    this.pruneTimer.unref();
  }

  /** Records a download served now. */
  record(download: ServedDownload): void {
    if (this.closed || this.pending.length >= this.maxPending) {
      this.lose(1, 'buffer_full');
      return;
    }
    this.pending.push(download);
    if (this.flushing !== null) return;
    // A full batch is written at once (busy servers); a partial one waits for the timer.
    if (this.pending.length >= this.batchSize) void this.flush();
    else if (this.timer === null) this.schedule();
  }

  /** Records waiting to be written. */
  pendingCount(): number {
    return this.pending.length;
  }

  /** Writes every record taken so far (and prunes when due); resolves once tried. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flushing = this.writePending().finally(() => {
      this.flushing = null;
      if (this.pending.length > 0 && !this.closed) this.schedule();
    });
    await this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.pruneTimer);
    await this.flush();
    this.closed = true;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  private async writePending(): Promise<void> {
    const taken = this.pending;
    this.pending = [];
    for (let start = 0; start < taken.length; start += this.batchSize) {
      const batch = taken.slice(start, start + this.batchSize);
      try {
        await this.store.append(batch.map((d) => ({ ...d, version: versionFromFilename(d.filename) })));
      } catch (err) {
        this.failed(err as Error, taken.slice(start));
        return;
      }
      this.events.written(batch.length);
      if (this.lostInBurst !== null) {
        this.events.recovered(this.lostInBurst);
        this.lostInBurst = null;
      }
    }
    await this.pruneIfDue();
  }

  /** The records not written are kept for the next flush as far as the bound allows; the rest are lost. */
  private failed(err: Error, unwritten: ServedDownload[]): void {
    if (this.lostInBurst === null) {
      this.lostInBurst = 0;
      this.events.failing(err);
    }
    const kept = unwritten.concat(this.pending);
    this.pending = kept.slice(0, this.maxPending);
    this.lose(kept.length - this.pending.length, 'store_failed');
  }

  private lose(count: number, reason: LossReason): void {
    if (count <= 0) return;
    if (this.lostInBurst !== null) this.lostInBurst += count;
    this.events.lost(count, reason);
  }

  private async pruneIfDue(): Promise<void> {
    const now = this.clock.now();
    if (now < this.nextPrune) return;
    this.nextPrune = now + this.pruneEveryMs;
    await this.store.prune(now - this.options.retentionMs).catch((err: Error) => this.events.pruneFailed(err));
  }
}
