import { written } from './written.js';
const keyOf = (id) => [id.project, id.filename, id.variant];
export class LmdbCachedFileIndex {
    db;
    constructor(root) {
        this.db = root.openDB({ name: 'upstream-files' });
    }
    get(id) {
        return this.db.get(keyOf(id));
    }
    async put(id, record) {
        await written(this.db.put(keyOf(id), record));
    }
    touch(id, record, at) {
        return this.put(id, { ...record, lastAccess: at });
    }
    async delete(id) {
        await written(this.db.remove(keyOf(id)));
    }
    *entries() {
        for (const { key, value } of this.db.getRange()) {
            const [project, filename, variant] = key.map(String);
            yield { id: { project: project, filename: filename, variant: variant }, record: value };
        }
    }
    totals() {
        let bytes = 0;
        let files = 0;
        for (const { value } of this.db.getRange()) {
            bytes += value.size;
            files += 1;
        }
        return { bytes, files };
    }
}
