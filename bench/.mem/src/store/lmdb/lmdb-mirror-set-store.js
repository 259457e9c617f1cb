import { written } from './written.js';
export class LmdbMirrorSetStore {
    db;
    constructor(root) {
        this.db = root.openDB({ name: 'mirror-sets' });
    }
    get(name) {
        return this.db.get(name);
    }
    list() {
        return Array.from(this.db.getRange(), ({ value }) => value);
    }
    async put(record) {
        await written(this.db.put(record.name, record));
    }
    async remove(name) {
        if (this.db.get(name) === undefined)
            return false;
        await written(this.db.remove(name));
        return true;
    }
}
