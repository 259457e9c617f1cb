import { CachedFiles } from './cached-files.js';
import { DocumentCache } from './document-cache.js';
import { RootList } from './root-list.js';
export class CachedSource {
    upstream;
    documents;
    /** The file cache: also what the graceful stop waits for and what the storage metrics count. */
    files;
    root;
    docs;
    constructor(upstream, stores, blobs, options, logger, events = {}) {
        this.upstream = upstream;
        const { documents: docs, cachedFiles: files } = stores;
        this.docs = docs;
        const { clock, space, offline } = options;
        this.documents = new DocumentCache(docs, { ...options, failure: (what, err) => upstream.failure(what, err) }, logger, events);
        const fileOptions = { offline, clock, space, maxFileSize: options.maxFileSize, budget: options.budget };
        this.files = new CachedFiles(upstream, files, blobs, fileOptions, logger, events, (name) => this.getProject(name));
        this.root = new RootList(upstream, docs, {
            cacheDir: options.cacheDir,
            ttl: options.rootTtl,
            staleWait: options.staleWait,
            offline,
            clock,
            space,
            logger,
            cachedNames: () => this.cachedProjectNames(),
            cachedCount: () => docs.pageCount(),
        });
    }
    *cachedProjectNames() {
        for (const { entry } of this.docs.pages()) {
            const page = entry.value;
            if (page)
                yield page.displayName;
        }
    }
    async listVersion() {
        return this.root.version();
    }
    listProjects() {
        return this.root.entries();
    }
    async lastSerial() {
        return this.root.lastSerial();
    }
    /** The cached page, without asking the upstream; null when none is cached or the upstream said 404. */
    cachedPage(name) {
        return this.documents.entry({ kind: 'page', project: name })?.value ?? null;
    }
    cachedDocument(id, what, fetch, merge, trace) {
        return this.documents.get({ id, what, fetch, merge, trace });
    }
    async getProject(name, trace) {
        return this.cachedDocument({ kind: 'page', project: name }, `project ${name}`, (v) => this.upstream.fetchProject(name, v), (page, old) => (old && old.serial > page.serial ? { ...page, serial: old.serial } : page), trace);
    }
    /** The upstream's JSON API document; null when the upstream has no JSON API or does not know the project. */
    async getReleases(name, trace) {
        if (!this.upstream.jsonApiUrl)
            return null;
        return this.cachedDocument({ kind: 'releases', project: name }, `the JSON API document of ${name}`, (v) => this.upstream.fetchReleases(name, v), (fresh, old) => (old && old.serial > fresh.serial ? { ...fresh, serial: old.serial } : fresh), trace);
    }
    /** The metadata of the upstream's `/pypi/<p>/<v>/json`; null when the upstream has no JSON API or no such release. */
    async getReleaseMetadata(name, version) {
        if (!this.upstream.jsonApiUrl)
            return null;
        return this.cachedDocument({ kind: 'release', project: name, version }, `the JSON API document of ${name} ${version}`, async (v) => {
            const fetched = await this.upstream.fetchRelease(name, version, v);
            return fetched.status === 'ok' ? { ...fetched, value: fetched.value.release.metadata } : fetched;
        }, (fresh) => fresh, undefined);
    }
    openFile(name, filename, variant, trace) {
        return this.files.openFile(name, filename, variant, trace);
    }
}
