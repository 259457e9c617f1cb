/** The advisories' audit trail: every block counted by reason (malware, vulnerable) and action, and logged at debug. */
import { Counter, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { BlockReason } from './advisories.js';

export type BlockAction = 'hidden' | 'refused';

export interface AdvisoryAudit {
  blocked(reason: BlockReason, action: BlockAction, project: string, version: string | null, advisory: string, filename?: string): void;
}

export class AdvisoryMetrics implements AdvisoryAudit {
  private readonly blocks: Counter<'reason' | 'action'>;

  constructor(
    registry: Registry,
    private readonly logger: Logger,
  ) {
    this.blocks = new Counter({
      name: 'larder_advisory_blocks_total',
      help: 'Upstream releases left off pages (hidden) and requests refused by imported advisories, by reason (malware, vulnerable).',
      labelNames: ['reason', 'action'],
      registers: [registry],
    });
  }

  blocked(reason: BlockReason, action: BlockAction, project: string, version: string | null, advisory: string, filename?: string): void {
    this.blocks.inc({ reason, action });
    this.logger.debug({ project, version, advisory, reason, filename }, `advisory ${action} ${project} ${version ?? ''}`.trimEnd());
  }
}
