/** Says what happened when the data disk ran full or a cache write failed: a metric every time, an error log line at most once a minute per kind. */
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import type { Metrics } from './metrics.js';

const LOG_EVERY_MS = 60_000;

export type StorageWhat = 'file' | 'page' | 'upload';

export class StorageReporter {
  private readonly lastLogged = new Map<string, number>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
  ) {}

  private due(kind: string): boolean {
    const now = this.clock.now();
    const last = this.lastLogged.get(kind);
    if (last !== undefined && now - last < LOG_EVERY_MS) return false;
    this.lastLogged.set(kind, now);
    return true;
  }

  /** `item` was not kept (or, for uploads, refused) because the data disk is full or below its reserve. */
  diskFull(what: StorageWhat, item: string, err: Error | null): void {
    this.metrics.diskFull.inc({ what });
    if (!this.due(`full:${what}`)) return;
    const consequence = what === 'upload' ? 'uploads are refused with 507' : `upstream ${what}s are served but not kept`;
    this.logger.error({ what, item, err: err?.message }, `the data disk is full or below LARDER_DISK_RESERVE: ${consequence} until space is freed`);
  }

  failed(what: string, err: Error): void {
    this.metrics.storeFailures.inc();
    if (this.due(`failed:${what}`)) this.logger.error({ what, err: err.message }, 'a cache write failed; what it concerned is still served');
  }
}
