import { normalizeName } from '../../model/names.js';
export class UpstreamRouter {
    upstreams;
    answered;
    open;
    constructor(upstreams, answered = () => { }) {
        this.upstreams = upstreams;
        this.answered = answered;
        this.open = upstreams.filter((u) => u.patterns === null);
    }
    /** The upstreams that may serve the project, in order. */
    candidates(name) {
        const routed = this.upstreams.find((u) => u.patterns?.some((p) => p.test(name)));
        return routed ? [routed] : this.open;
    }
    /** The upstream that serves the project (asking each candidate in order when there are several), and its page. */
    async choose(name, trace) {
        const candidates = this.candidates(name);
        if (candidates.length === 1)
            return { upstream: candidates[0], page: null };
        for (const upstream of candidates) {
            const page = await upstream.source.getProject(name, trace);
            if (page)
                return { upstream, page };
        }
        return null;
    }
    mark(trace, upstream, kind) {
        if (trace)
            trace.upstream = upstream.name;
        this.answered(upstream.name, kind);
    }
    async getProject(name, trace) {
        const chosen = await this.choose(name, trace);
        if (!chosen)
            return null;
        const page = chosen.page ?? (await chosen.upstream.source.getProject(name, trace));
        if (page)
            this.mark(trace, chosen.upstream, 'page');
        return page;
    }
    async getReleases(name, trace, forVersion) {
        const chosen = await this.choose(name);
        if (!chosen)
            return null;
        const doc = await chosen.upstream.source.getReleases(name, trace, forVersion);
        if (doc)
            this.mark(trace, chosen.upstream, 'releases');
        return doc;
    }
    async openFile(name, filename, variant, trace) {
        const chosen = await this.choose(name);
        if (!chosen)
            return null;
        const body = await chosen.upstream.source.openFile(name, filename, variant, trace);
        if (body)
            this.mark(trace, chosen.upstream, 'file');
        return body;
    }
    /** For the upload side's name check: the first candidate's cached page. */
    cachedPage(name) {
        for (const upstream of this.candidates(name)) {
            const page = upstream.cachedPage(name);
            if (page)
                return page;
        }
        return null;
    }
    async *listProjects() {
        if (this.upstreams.length === 1)
            return yield* this.upstreams[0].source.listProjects();
        const seen = new Set();
        for (const upstream of this.upstreams) {
            for await (const batch of upstream.source.listProjects()) {
                yield batch.filter((entry) => {
                    const name = entry.normalized ?? normalizeName(entry.name);
                    if (seen.has(name) || !this.candidates(name).includes(upstream))
                        return false;
                    seen.add(name);
                    return true;
                });
            }
        }
    }
    async listVersion() {
        const versions = await Promise.all(this.upstreams.map((u) => u.source.listVersion()));
        return versions.join(' ');
    }
    async lastSerial() {
        const serials = await Promise.all(this.upstreams.map((u) => u.source.lastSerial().catch(() => 0)));
        return Math.max(0, ...serials);
    }
}
