/**
 * The upload side's question to the upstream (the new-name rule of docs/uploads.md): does it have a project of
 * this name, and which serial has larder seen for it? Asked through the cached source; offline, only
 * the cache is consulted.
 */
import { LarderError } from '../base/errors.js';
/** Fills the publisher's `UpstreamNames` (upload/publish.ts). */
export class UpstreamNameCheck {
    pages;
    offline;
    constructor(pages, offline) {
        this.pages = pages;
        this.offline = offline;
    }
    /** Offline: as far as the cache knows. */
    async exists(name) {
        if (this.offline)
            return Boolean(this.pages.cachedPage(name));
        try {
            return (await this.pages.getProject(name)) !== null;
        }
        catch (err) {
            throw new LarderError('upstream_check_failed', `larder could not ask the upstream index whether '${name}' exists (${err.message}); try again later, or have an administrator allow the name.`);
        }
    }
    knownSerial(name) {
        return this.pages.cachedPage(name)?.serial ?? 0;
    }
}
