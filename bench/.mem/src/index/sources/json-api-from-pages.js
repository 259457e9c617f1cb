import { normalizeName } from '../../model/names.js';
import { latestRelease } from '../../model/release-choice.js';
import { releasesFromPage } from '../../upstream/json-api-from-simple.js';
import { SourceDecorator } from './source-decorator.js';
export class JsonApiFromPages extends SourceDecorator {
    metadataOf;
    /**
     * One build per page while it is complete: the page object stays the same while it is cached, and
     * renderers cache by identity. An incomplete build is done again at the next request, so a file that
     * has been cached since shows its size, digest and metadata.
     */
    built = new WeakMap();
    constructor(inner, metadataOf) {
        super(inner);
        this.metadataOf = metadataOf;
    }
    async getReleases(name, trace, forVersion) {
        const doc = await this.inner.getReleases(name, trace, forVersion);
        if (doc)
            return doc;
        const page = await this.inner.getProject(name, trace);
        if (!page)
            return null;
        let entry = this.built.get(page);
        if (!entry || entry.complete === false) {
            const done = this.build(page);
            const build = { doc: done.then((result) => result.doc), complete: null };
            done.then((result) => (build.complete = result.complete), () => (build.complete = false));
            this.built.set(page, build);
            entry = build;
        }
        return entry.doc;
    }
    async build(page) {
        const known = await this.withCachedFacts(page);
        const draft = releasesFromPage(known);
        const latest = latestRelease(draft.releases.filter((r) => r.files.length > 0));
        const metadata = latest && (await this.metadataOf(page.name, latest));
        const allKnown = known.files.every((file) => file.size !== null && file.hashes.sha256);
        if (!metadata)
            return { doc: draft, complete: allKnown && !latest };
        const doc = releasesFromPage(known, new Map([[latest.version, metadata]]));
        // A PEP 503 page names the project only in its URL; the metadata has the name as its author wrote it.
        const displayName = page.displayName === page.name && normalizeName(metadata.name) === page.name ? metadata.name : page.displayName;
        return { doc: { ...doc, displayName }, complete: allKnown };
    }
    /** The page with the size and sha256 of each file it lacks them for, where the verified file is cached. */
    async withCachedFacts(page) {
        const files = await Promise.all(page.files.map(async (file) => {
            if (file.size !== null && file.hashes.sha256)
                return file;
            const body = await this.inner.openFile(page.name, file.filename, 'file').catch(() => null);
            if (body?.kind !== 'disk')
                return file;
            return { ...file, size: body.size, hashes: { ...file.hashes, sha256: body.sha256 } };
        }));
        return files.some((file, i) => file !== page.files[i]) ? { ...page, files } : page;
    }
}
