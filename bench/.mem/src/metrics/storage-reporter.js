const LOG_EVERY_MS = 60_000;
export class StorageReporter {
    logger;
    metrics;
    clock;
    lastLogged = new Map();
    constructor(logger, metrics, clock) {
        this.logger = logger;
        this.metrics = metrics;
        this.clock = clock;
    }
    due(kind) {
        const now = this.clock.now();
        const last = this.lastLogged.get(kind);
        if (last !== undefined && now - last < LOG_EVERY_MS)
            return false;
        this.lastLogged.set(kind, now);
        return true;
    }
    /** `item` was not kept (or, for uploads, refused) because the data disk is full or below its reserve. */
    diskFull(what, item, err) {
        this.metrics.diskFull.inc({ what });
        if (!this.due(`full:${what}`))
            return;
        const consequence = what === 'upload' ? 'uploads are refused with 507' : `upstream ${what}s are served but not kept`;
        this.logger.error({ what, item, err: err?.message }, `the data disk is full or below LARDER_DISK_RESERVE: ${consequence} until space is freed`);
    }
    failed(what, err) {
        this.metrics.storeFailures.inc();
        if (this.due(`failed:${what}`))
            this.logger.error({ what, err: err.message }, 'a cache write failed; what it concerned is still served');
    }
}
