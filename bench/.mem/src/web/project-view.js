/** Gathers what a project page shows: the releases from the index source, the description, who may manage it. */
import { LRUCache } from 'lru-cache';
import { mayOwn } from '../auth/authenticator.js';
import { findRelease, latestRelease } from '../model/release-choice.js';
import { compareVersions, isValidVersion } from '../model/versions.js';
import { DescriptionRenderer } from './description.js';
function newestFirst(a, b) {
    const av = isValidVersion(a.version);
    const bv = isValidVersion(b.version);
    if (av && bv)
        return compareVersions(b.version, a.version);
    return av === bv ? b.version.localeCompare(a.version) : av ? -1 : 1;
}
export class ProjectViews {
    source;
    meta;
    mergeAllowList;
    descriptions = new DescriptionRenderer();
    /** Rendered descriptions by project, version and serial: Markdown of a long README takes milliseconds. */
    rendered = new LRUCache({ max: 500 });
    constructor(source, meta, mergeAllowList) {
        this.source = source;
        this.meta = meta;
        this.mergeAllowList = mergeAllowList;
    }
    async lookup(name, version, viewer) {
        const releases = await this.source.getReleases(name, undefined, version ?? undefined);
        if (!releases || releases.releases.length === 0)
            return { found: 'none' };
        const release = version === null ? latestRelease(releases.releases) : findRelease(releases.releases, version);
        if (!release)
            return { found: 'none' };
        if (version !== null && release.version !== version)
            return { found: 'other-spelling', version: release.version };
        const record = this.meta.getProject(name);
        const origin = record ? (this.mergeAllowList.has(name) ? 'merged' : 'private') : 'upstream';
        const key = `${name}\0${release.version}\0${releases.serial}`;
        let descriptionHtml = this.rendered.get(key);
        if (descriptionHtml === undefined) {
            descriptionHtml = this.descriptions.render(release.metadata.description, release.metadata.description_content_type);
            this.rendered.set(key, descriptionHtml);
        }
        return {
            found: 'page',
            view: {
                name,
                displayName: releases.displayName,
                origin,
                releases: [...releases.releases].sort(newestFirst),
                release,
                latest: version === null,
                descriptionHtml,
                canManage: viewer !== null && record !== undefined && mayOwn(viewer, name, record),
            },
        };
    }
}
