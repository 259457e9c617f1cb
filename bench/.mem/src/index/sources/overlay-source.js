import { normalizeName } from '../../model/names.js';
export class OverlaySource {
    privateSource;
    upstream;
    mergeAllowList;
    constructor(privateSource, upstream, options = {}) {
        this.privateSource = privateSource;
        this.upstream = upstream;
        this.mergeAllowList = options.mergeAllowList ?? new Set();
    }
    async *listProjects() {
        const privateNames = new Set();
        for await (const batch of this.privateSource.listProjects()) {
            for (const entry of batch)
                privateNames.add(entry.normalized ?? normalizeName(entry.name));
            yield batch;
        }
        if (!this.upstream)
            return;
        for await (const batch of this.upstream.listProjects()) {
            yield privateNames.size === 0 ? batch : batch.filter((e) => !privateNames.has(e.normalized ?? normalizeName(e.name)));
        }
    }
    async listVersion() {
        const own = await this.privateSource.listVersion();
        return this.upstream ? `${own} ${await this.upstream.listVersion()}` : own;
    }
    async lastSerial() {
        const own = await this.privateSource.lastSerial();
        const upstream = this.upstream ? await this.upstream.lastSerial().catch(() => 0) : 0;
        return Math.max(own, upstream);
    }
    merges(name) {
        return this.upstream !== null && this.mergeAllowList.has(name);
    }
    async getProject(name, trace) {
        const own = await this.privateSource.getProject(name);
        if (!own)
            return this.upstream ? this.upstream.getProject(name, trace) : null;
        if (!this.merges(name))
            return own;
        const theirs = await this.upstream.getProject(name, trace).catch(() => null);
        if (!theirs)
            return own;
        const ownFilenames = new Set(own.files.map((f) => f.filename));
        return {
            ...own,
            origin: 'merged',
            serial: Math.max(own.serial, theirs.serial),
            files: [...own.files, ...theirs.files.filter((f) => !ownFilenames.has(f.filename))],
            versions: [...new Set([...own.versions, ...theirs.versions])],
        };
    }
    async getReleases(name, trace, forVersion) {
        const own = await this.privateSource.getReleases(name);
        if (!own)
            return this.upstream ? this.upstream.getReleases(name, trace, forVersion) : null;
        if (!this.merges(name))
            return own;
        const theirs = await this.upstream.getReleases(name, trace).catch(() => null);
        if (!theirs)
            return own;
        const ownVersions = new Set(own.releases.map((r) => r.version));
        return {
            ...own,
            serial: Math.max(own.serial, theirs.serial),
            releases: [...own.releases, ...theirs.releases.filter((r) => !ownVersions.has(r.version))],
            vulnerabilities: theirs.vulnerabilities,
        };
    }
    async openFile(name, filename, variant, trace) {
        if (this.privateSource.has(name)) {
            const own = await this.privateSource.openFile(name, filename, variant);
            if (own || !this.merges(name))
                return own;
        }
        return this.upstream ? this.upstream.openFile(name, filename, variant, trace) : null;
    }
}
