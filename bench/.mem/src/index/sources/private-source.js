/** The `private` index source: projects uploaded to this larder, from LMDB records and the blob store. */
import { LRUCache } from 'lru-cache';
import { contentTypeFor } from '../../model/filenames.js';
export class PrivateSource {
    meta;
    blobs;
    /** Built pages by project, reused while the project's serial is unchanged (renderers cache by page identity). */
    pages = new LRUCache({ max: 2000 });
    constructor(meta, blobs) {
        this.meta = meta;
        this.blobs = blobs;
    }
    async listVersion() {
        return `private:${this.meta.lastSerial()}`;
    }
    has(name) {
        return this.meta.getProject(name) !== undefined;
    }
    async *listProjects() {
        yield Array.from(this.meta.listProjects(), (p) => ({ name: p.displayName, serial: projectSerial(p), normalized: p.name }));
    }
    async lastSerial() {
        return this.meta.lastSerial();
    }
    async getProject(name) {
        const project = this.meta.getProject(name);
        if (!project)
            return null;
        const known = this.pages.get(name);
        if (known && known.serial === projectSerial(project))
            return known;
        const releases = new Map(this.meta.getReleases(name).map((r) => [r.version, r]));
        const files = this.meta.getFiles(name).map((f) => toFileEntry(f, releases.get(f.version)));
        const page = {
            name,
            displayName: project.displayName,
            serial: projectSerial(project),
            files,
            versions: [...releases.keys()],
            origin: 'private',
        };
        this.pages.set(name, page);
        return page;
    }
    async getReleases(name) {
        const project = this.meta.getProject(name);
        if (!project)
            return null;
        const files = this.meta.getFiles(name);
        const releases = this.meta.getReleases(name).map((r) => ({
            version: r.version,
            metadata: r.metadata,
            yanked: r.yanked,
            yankedReason: r.yankedReason,
            files: files.filter((f) => f.version === r.version).map((f) => toReleaseFile(f, r)),
        }));
        return {
            name,
            displayName: project.displayName,
            serial: projectSerial(project),
            releases,
            ownership: {
                roles: [
                    ...[...project.owners].sort().map((user) => ({ role: 'Owner', user })),
                    ...[...project.maintainers].sort().map((user) => ({ role: 'Maintainer', user })),
                ],
                organization: null,
            },
        };
    }
    async openFile(name, filename, variant) {
        const file = this.meta.getFile(name, filename);
        if (!file)
            return null;
        const sha256 = variant === 'file' ? file.sha256 : variant === 'metadata' ? file.metadataSha256 : file.signatureSha256;
        if (!sha256)
            return null;
        const size = variant === 'file' ? file.size : await this.blobs.size(sha256);
        if (size === null)
            return null;
        const contentType = variant === 'file' ? contentTypeFor(filename) : variant === 'metadata' ? 'text/plain; charset=utf-8' : 'application/pgp-signature';
        return { kind: 'disk', path: this.blobs.pathFor(sha256), size, sha256, etag: `"${sha256}"`, contentType };
    }
}
/** The serial clients see: larder's, on top of the upstream's when the project took over an upstream name. */
function projectSerial(project) {
    return project.serial + (project.serialBase ?? 0);
}
function toFileEntry(f, release) {
    return {
        filename: f.filename,
        version: f.version,
        sourceUrl: `/packages/${f.project}/${encodeURIComponent(f.filename)}`,
        hashes: { sha256: f.sha256, md5: f.md5, blake2b_256: f.blake2b_256 },
        requiresPython: f.requiresPython,
        yanked: release?.yanked ?? false,
        yankedReason: release?.yankedReason ?? null,
        coreMetadata: f.metadataSha256 ? { sha256: f.metadataSha256 } : false,
        size: f.size,
        uploadTime: f.uploadTime,
        hasSig: f.signatureSha256 !== null,
    };
}
function toReleaseFile(f, release) {
    return { ...toFileEntry(f, release), packagetype: f.packagetype, pythonVersion: f.pyversion, comment: f.comment };
}
