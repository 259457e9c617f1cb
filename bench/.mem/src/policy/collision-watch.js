import { normalizeName } from '../model/names.js';
import { SourceDecorator } from '../index/sources/source-decorator.js';
/** How often the last-seen time of a known collision is written. */
const LAST_SEEN_EVERY_MS = 3_600_000;
export class CollisionWatch extends SourceDecorator {
    upstream;
    privateNames;
    store;
    clock;
    logger;
    constructor(inner, upstream, privateNames, store, clock, logger) {
        super(inner);
        this.upstream = upstream;
        this.privateNames = privateNames;
        this.store = store;
        this.clock = clock;
        this.logger = logger;
    }
    async *listProjects() {
        const own = new Set();
        for await (const batch of this.privateNames.listProjects())
            for (const e of batch)
                own.add(e.normalized ?? normalizeName(e.name));
        for await (const batch of this.inner.listProjects()) {
            if (own.size) {
                for (const e of batch) {
                    const name = e.normalized ?? normalizeName(e.name);
                    if (own.has(name))
                        this.seen(name, 'the project list');
                }
            }
            yield batch;
        }
    }
    async getProject(name, trace) {
        const page = await this.inner.getProject(name, trace);
        if (page && this.privateNames.has(name))
            this.seen(name, 'a project page');
        return page;
    }
    seen(project, where) {
        const now = new Date(this.clock.now()).toISOString();
        const known = this.store.getCollision(project, this.upstream);
        if (known && Date.parse(now) - Date.parse(known.lastSeen) < LAST_SEEN_EVERY_MS)
            return;
        if (!known) {
            this.logger.warn({ project, upstream: this.upstream }, `upstream ${this.upstream} lists a project named like the private project ${project} (seen in ${where}); the private project keeps winning`);
        }
        this.store.putCollision({ project, upstream: this.upstream, firstSeen: known?.firstSeen ?? now, lastSeen: now }).catch((err) => {
            this.logger.warn({ err, project }, 'could not record a name collision');
        });
    }
}
