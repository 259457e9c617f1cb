import { NameList } from './name-list.js';
/** The cached projects' list is rebuilt at most this often. */
const CACHED_REBUILD_MS = 5_000;
export class ProjectSearch {
    sources;
    clock;
    cached = null;
    upstream = null;
    building = null;
    constructor(sources, clock) {
        this.sources = sources;
        this.clock = clock;
    }
    /** Starts building the upstream list's search structure, if it is stale, without waiting for it. */
    warm() {
        this.upstreamList().catch(() => { });
    }
    /** How many upstream projects have a cached page (as of the last rebuild of their list). */
    cachedProjects() {
        return this.cachedList().size;
    }
    cachedList() {
        const now = this.clock.now();
        const key = String(this.sources.cachedCount());
        if (!this.cached || (this.cached.key !== key && now - this.cached.at >= CACHED_REBUILD_MS)) {
            this.cached = { key, at: now, list: NameList.from(Array.from(this.sources.cachedNames(), (name) => ({ name }))) };
        }
        return this.cached.list;
    }
    async upstreamList() {
        const key = this.sources.upstreamListVersion();
        if (key === null)
            return null;
        if (this.upstream?.key === key)
            return this.upstream.list;
        if (this.building?.key !== key) {
            const done = NameList.fromBatches(this.sources.upstreamList()).then((list) => ({ key, list, at: this.clock.now() }));
            const building = { key, done };
            this.building = building;
            void done.then((built) => {
                this.upstream = built;
                if (this.building === building)
                    this.building = null;
            }, () => {
                if (this.building === building)
                    this.building = null;
            });
        }
        return (await this.building.done).list;
    }
    async search(query, offset, limit) {
        const privateProjects = Array.from(this.sources.privateProjects(), (p) => ({ name: p.displayName, normalized: p.name }));
        const groups = [
            ['private', NameList.from(privateProjects)],
            ['cached', this.cachedList()],
            // A list that cannot be read leaves the search to the private and cached projects.
            ['upstream', await this.upstreamList().catch(() => null)],
        ];
        // Each project is listed once, in the first group that has it.
        const listed = new Set();
        const hits = [];
        let total = 0;
        for (const [kind, list] of groups) {
            if (!list)
                continue;
            const found = list.search(query, Math.max(0, offset - total), Math.max(0, limit - hits.length), listed);
            for (const hit of found.hits)
                hits.push({ ...hit, kind });
            total += found.total;
            if (kind === 'private')
                for (const p of privateProjects)
                    listed.add(p.normalized);
            if (kind === 'cached' && list.size > 0) {
                for (const hit of list.search(query, 0, Number.MAX_SAFE_INTEGER, listed).hits)
                    listed.add(hit.normalized);
            }
        }
        return { total, hits };
    }
}
