/**
 * The cache protocol shared by upstream project pages and JSON documents: entries kept in LMDB with their
 * validators and in memory; fresh ones served without asking; stale ones revalidated (If-None-Match /
 * If-Modified-Since), one request in flight per document. A request for a stale document waits at most
 * `staleWait` for the upstream, then gets the stale copy while the revalidation goes on; an upstream
 * failure also serves the stale copy. Offline, the upstream is never asked.
 */
import { LRUCache } from 'lru-cache';
import { documentLabel } from '../../store/upstream-document-store.js';
import { atMost } from './at-most.js';
import { offlineNotCached } from './cached-files.js';
export class DocumentCache {
    docs;
    options;
    logger;
    events;
    /** Decoded entries, so a hot page is neither decoded from LMDB nor rebuilt per request. */
    memory = new LRUCache({ max: 5000 });
    inflight = new Map();
    constructor(docs, options, logger, events) {
        this.docs = docs;
        this.options = options;
        this.logger = logger;
        this.events = events;
    }
    entry(id) {
        const label = documentLabel(id);
        let entry = this.memory.get(label);
        if (!entry) {
            entry = this.docs.get(id);
            if (entry)
                this.memory.set(label, entry);
        }
        return entry;
    }
    store(id, entry) {
        this.memory.set(documentLabel(id), entry);
        void this.persist(id, entry);
    }
    /** Written in the background: a page that cannot be kept on disk is still served from memory. */
    async persist(id, entry) {
        if (!(await this.options.space.allows(0))) {
            this.events.diskFull?.('page', documentLabel(id), null);
            return;
        }
        try {
            await this.docs.put(id, entry);
        }
        catch (err) {
            this.options.space.forget();
            this.events.storeFailed?.(`cached ${documentLabel(id)}`, err);
        }
    }
    fresh(entry) {
        const age = this.options.clock.now() - entry.fetchedAt;
        return age < (entry.value === null ? this.options.notFoundTtl : this.options.pageTtl);
    }
    async get(request) {
        const entry = this.entry(request.id);
        const report = (state) => {
            if (request.trace)
                request.trace.cache = state;
        };
        if (this.options.offline) {
            if (!entry)
                throw offlineNotCached(request.what);
            report('hit');
            return entry.value;
        }
        if (entry && this.fresh(entry)) {
            report('hit');
            return entry.value;
        }
        const label = documentLabel(request.id);
        let pending = this.inflight.get(label);
        if (!pending) {
            pending = this.refresh(request, entry).finally(() => this.inflight.delete(label));
            this.inflight.set(label, pending);
        }
        // With a stale copy to offer, the wait is bounded; the refresh goes on and lands in the cache.
        const stale = () => ({ value: entry.value, state: 'stale' });
        const { value, state } = entry ? await atMost(pending, this.options.staleWait, stale) : await pending;
        report(state);
        return value;
    }
    async refresh(request, entry) {
        const { id, what } = request;
        try {
            const answer = await request.fetch(entry?.value ? entry.validators : undefined);
            const now = this.options.clock.now();
            if (answer.status === 'not-modified' && entry) {
                this.store(id, { ...entry, fetchedAt: now });
                return { value: entry.value, state: 'revalidated' };
            }
            if (answer.status === 'ok') {
                const value = request.merge(answer.value, entry?.value ?? null);
                this.store(id, { value, fetchedAt: now, validators: answer.validators });
                return { value, state: entry ? 'revalidated' : 'miss' };
            }
            this.store(id, { value: null, fetchedAt: now, validators: {} });
            return { value: null, state: entry ? 'revalidated' : 'miss' };
        }
        catch (err) {
            if (entry) {
                this.logger.warn({ err: err.message, what }, 'upstream failed; serving the stale cached copy');
                return { value: entry.value, state: 'stale' };
            }
            this.logger.warn({ err: err.message, what }, 'upstream failed and nothing is cached');
            throw this.options.failure(what, err);
        }
    }
}
