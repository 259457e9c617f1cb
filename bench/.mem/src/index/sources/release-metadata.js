import { findRelease } from '../../model/release-choice.js';
import { isPlaceholderMetadata } from '../../upstream/parse-json-api.js';
import { SourceDecorator } from './source-decorator.js';
export class ReleaseMetadataFiller extends SourceDecorator {
    lookups;
    perVersion = new WeakMap();
    constructor(inner, 
    /** Asked in order; one that fails counts as one that found nothing. */
    lookups) {
        super(inner);
        this.lookups = lookups;
    }
    async getReleases(name, trace, forVersion) {
        const doc = await this.inner.getReleases(name, trace);
        return doc && forVersion !== undefined ? this.withReleaseMetadata(doc, forVersion) : doc;
    }
    /** The document with `version`'s entry carrying that release's own metadata, when it can be found. */
    withReleaseMetadata(doc, version) {
        const release = findRelease(doc.releases, version);
        if (!release || !isPlaceholderMetadata(release.metadata))
            return Promise.resolve(doc);
        let known = this.perVersion.get(doc);
        if (!known) {
            known = new Map();
            this.perVersion.set(doc, known);
        }
        let filled = known.get(release.version);
        if (!filled) {
            filled = this.releaseMetadata(doc.name, release).then((metadata) => metadata ? { ...doc, releases: doc.releases.map((r) => (r === release ? { ...r, metadata } : r)) } : doc);
            known.set(release.version, filled);
        }
        return filled;
    }
    async releaseMetadata(name, release) {
        for (const lookup of this.lookups) {
            const found = await lookup(name, release).catch(() => null);
            if (found)
                return found;
        }
        return null;
    }
}
