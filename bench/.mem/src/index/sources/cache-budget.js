import { privateBlobs } from '../../store/blob-references.js';
import { mirrorFileKey, pinnedFiles } from '../../store/mirror-set-store.js';
const sameFile = (a, b) => a.project === b.project && a.filename === b.filename && a.variant === b.variant;
export class CacheBudget {
    storage;
    maxBytes;
    logger;
    onEvicted;
    used = null;
    evicting = null;
    constructor(storage, maxBytes, logger, onEvicted = () => { }) {
        this.storage = storage;
        this.maxBytes = maxBytes;
        this.logger = logger;
        this.onEvicted = onEvicted;
    }
    total() {
        if (this.used === null) {
            this.used = this.storage.cachedFiles.totals().bytes;
        }
        return this.used;
    }
    /** A verified file of `size` bytes was just recorded as `id`. */
    added(id, size) {
        this.used = this.total() + size;
        if (this.used <= this.maxBytes)
            return Promise.resolve();
        this.evicting ??= this.evict(id).finally(() => (this.evicting = null));
        return this.evicting;
    }
    async evict(keep) {
        const { index, cachedFiles, blobs, mirrorSets } = this.storage;
        const all = Array.from(cachedFiles.entries());
        const pinned = pinnedFiles(mirrorSets);
        const records = all
            .filter((r) => !sameFile(r.id, keep) && !pinned.has(mirrorFileKey(r.id.project, r.id.filename, r.id.variant)))
            .sort((a, b) => a.record.lastAccess - b.record.lastAccess);
        const protectedShas = privateBlobs(index);
        const stillNamed = new Map();
        for (const { record } of all)
            stillNamed.set(record.sha256, (stillNamed.get(record.sha256) ?? 0) + 1);
        let files = 0;
        let bytes = 0;
        for (const { id, record } of records) {
            if (this.total() <= this.maxBytes)
                break;
            await cachedFiles.delete(id);
            this.used = this.total() - record.size;
            const left = (stillNamed.get(record.sha256) ?? 1) - 1;
            stillNamed.set(record.sha256, left);
            if (left === 0 && !protectedShas.has(record.sha256))
                await blobs.remove(record.sha256);
            files += 1;
            bytes += record.size;
        }
        if (files > 0) {
            this.onEvicted(files, bytes);
            this.logger.info({ files, bytes, used: this.total(), max: this.maxBytes }, 'evicted least recently used cached files');
        }
    }
}
