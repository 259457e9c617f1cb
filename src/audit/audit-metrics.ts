/**
 * What the download audit reports: records written and lost (by reason) in /metrics, records waiting,
 * and one log line when writing starts failing and one when it works again (not one per record).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { AuditEvents, LossReason } from './download-audit.js';

export class AuditMetrics implements AuditEvents {
  private readonly writtenTotal: Counter;
  private readonly lostTotal: Counter<'reason'>;

  constructor(
    registry: Registry,
    private readonly logger: Logger,
    pending: () => number,
  ) {
    this.writtenTotal = new Counter({
      name: 'larder_audit_records_total',
      help: 'Download audit records written to the store.',
      registers: [registry],
    });
    this.lostTotal = new Counter({
      name: 'larder_audit_lost_total',
      help: 'Download audit records lost: the store could not be written (store_failed) or the bounded buffer was full (buffer_full).',
      labelNames: ['reason'],
      registers: [registry],
    });
    for (const reason of ['buffer_full', 'store_failed']) this.lostTotal.inc({ reason }, 0);
    new Gauge({
      name: 'larder_audit_pending_records',
      help: 'Download audit records waiting to be written.',
      registers: [registry],
      collect() {
        this.set(pending());
      },
    });
  }

  written(count: number): void {
    this.writtenTotal.inc(count);
  }

  lost(count: number, reason: LossReason): void {
    this.lostTotal.inc({ reason }, count);
  }

  failing(err: Error): void {
    this.logger.error(
      { err: err.message },
      'download audit: the records cannot be written; downloads go on, records wait in memory up to a bound and are then dropped (larder_audit_lost_total)',
    );
  }

  recovered(lost: number): void {
    this.logger.warn({ lost }, `download audit: the records are written again; ${lost} were lost meanwhile`);
  }

  pruneFailed(err: Error): void {
    this.logger.warn({ err: err.message }, 'download audit: removing records older than LARDER_AUDIT_RETENTION failed; tried again later');
  }
}
