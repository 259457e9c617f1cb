/**
 * The blobs one upload commits, so that an upload the store still refuses can take back what it added.
 * Blobs are content-addressed and shared: a blob is removed only when this upload created it, no record
 * references it, and no one has committed the same bytes since (a commit of an existing blob renews its
 * mtime, as garbage collection expects).
 */
import { referencedBlobs } from '../store/blob-references.js';
export class UploadBlobs {
    blobs;
    index;
    cachedFiles;
    /** Blobs that did not exist before this upload committed them, with their mtime right after. */
    added = [];
    constructor(blobs, index, cachedFiles) {
        this.blobs = blobs;
        this.index = index;
        this.cachedFiles = cachedFiles;
    }
    /** Makes a finished temporary file the blob `sha256` (see BlobStore.commit). */
    async commit(tmpPath, sha256) {
        await this.track(sha256, () => this.blobs.commit(tmpPath, sha256));
    }
    async writeBuffer(bytes, sha256) {
        await this.track(sha256, () => this.blobs.writeBuffer(bytes, sha256));
    }
    async track(sha256, commit) {
        const existed = await this.blobs.has(sha256);
        await commit();
        const mtimeMs = existed ? null : await this.blobs.modifiedAt(sha256);
        if (mtimeMs !== null)
            this.added.push({ sha256, mtimeMs });
    }
    /** Removes the blobs this upload added that nothing references. Call it only once the upload has failed. */
    async takeBack() {
        const added = this.added.splice(0);
        if (added.length === 0)
            return;
        const referenced = referencedBlobs(this.index, this.cachedFiles);
        for (const { sha256, mtimeMs } of added) {
            if (referenced.has(sha256))
                continue;
            if ((await this.blobs.modifiedAt(sha256)) === mtimeMs)
                await this.blobs.remove(sha256);
        }
    }
}
