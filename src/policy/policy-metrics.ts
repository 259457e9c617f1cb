/**
 * The policy's audit trail: every decision that hides or refuses something, counted by rule and logged
 * at debug with project, version and rule; files with no known upload time; name collisions; which
 * upstream answered.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { PolicyRule } from './policy.js';

export type PolicyAction = 'hidden' | 'refused';

export interface PolicyAudit {
  decided(rule: PolicyRule, action: PolicyAction, project: string, version: string | null, filename?: string): void;
  /** An upstream file was looked at under the cooldown and had no known upload time. */
  unknownUploadTime(project: string, filename: string): void;
}

export class PolicyMetrics implements PolicyAudit {
  private readonly decisions: Counter<'rule' | 'action'>;
  private readonly unknown: Counter;
  readonly upstreamAnswers: Counter<'upstream' | 'kind'>;

  constructor(
    registry: Registry,
    private readonly logger: Logger,
    countCollisions: () => Promise<number>,
  ) {
    this.decisions = new Counter({
      name: 'larder_policy_decisions_total',
      help: 'Upstream files and releases hidden from pages, or requests refused, by policy rule (deny, allow-list, cooldown, unknown-upload-time).',
      labelNames: ['rule', 'action'],
      registers: [registry],
    });
    this.unknown = new Counter({
      name: 'larder_policy_unknown_upload_time_total',
      help: 'Upstream files looked at under the release cooldown that had no known upload time.',
      registers: [registry],
    });
    this.upstreamAnswers = new Counter({
      name: 'larder_upstream_answers_total',
      help: 'Project pages, JSON documents and files answered by each upstream, by kind (page, releases, file).',
      labelNames: ['upstream', 'kind'],
      registers: [registry],
    });
    new Gauge({
      name: 'larder_name_collisions',
      help: 'Upstream projects seen with the name of a private project (larder policy collisions lists them).',
      registers: [registry],
      async collect() {
        this.set(await countCollisions());
      },
    });
  }

  decided(rule: PolicyRule, action: PolicyAction, project: string, version: string | null, filename?: string): void {
    this.decisions.inc({ rule, action });
    this.logger.debug({ project, version, rule, filename }, `policy ${action} ${project} ${version ?? ''}`.trimEnd());
  }

  unknownUploadTime(project: string, filename: string): void {
    this.unknown.inc();
    this.logger.debug({ project, filename }, 'upstream file has no known upload time');
  }
}
