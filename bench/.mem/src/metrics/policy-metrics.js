/**
 * The policy's audit trail: every decision that hides or refuses something, counted by rule and logged
 * at debug with project, version and rule; files with no known upload time; name collisions; which
 * upstream answered.
 */
import { Counter, Gauge } from 'prom-client';
export class PolicyMetrics {
    logger;
    decisions;
    unknown;
    upstreamAnswers;
    constructor(registry, logger, countCollisions) {
        this.logger = logger;
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
            collect() {
                this.set(countCollisions());
            },
        });
    }
    decided(rule, action, project, version, filename) {
        this.decisions.inc({ rule, action });
        this.logger.debug({ project, version, rule, filename }, `policy ${action} ${project} ${version ?? ''}`.trimEnd());
    }
    unknownUploadTime(project, filename) {
        this.unknown.inc();
        this.logger.debug({ project, filename }, 'upstream file has no known upload time');
    }
}
