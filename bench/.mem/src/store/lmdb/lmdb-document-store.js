import { after } from './environment.js';
import { written } from './written.js';
const ROOT_KEY = ['root'];
const keyOf = (id) => (id.kind === 'release' ? [id.kind, id.project, id.version] : [id.kind, id.project]);
/** The document a key names, or null for the root entry (and anything else). */
function idOf(key) {
    if (!Array.isArray(key))
        return null;
    const [kind, project, version] = key.map(String);
    if ((kind === 'page' || kind === 'releases') && key.length === 2)
        return { kind, project: project };
    if (kind === 'release' && key.length === 3)
        return { kind, project: project, version: version };
    return null;
}
export class LmdbDocumentStore {
    db;
    /** `name`: the database; another upstream than the first keeps its documents in one of its own. */
    constructor(root, name = 'upstream-docs') {
        this.db = root.openDB({ name });
    }
    get(id) {
        return this.db.get(keyOf(id));
    }
    async put(id, entry) {
        await written(this.db.put(keyOf(id), entry));
    }
    async delete(id) {
        await written(this.db.remove(keyOf(id)));
    }
    *entries() {
        for (const { key, value } of this.db.getRange()) {
            const id = idOf(key);
            if (id)
                yield { id, entry: value };
        }
    }
    *pages() {
        for (const { key, value } of this.db.getRange({ start: ['page'], end: after('page') })) {
            yield { project: String(key[1]), entry: value };
        }
    }
    pageCount() {
        return this.db.getCount({ start: ['page'], end: after('page') });
    }
    getRootList() {
        return this.db.get(ROOT_KEY);
    }
    async putRootList(record) {
        await written(this.db.put(ROOT_KEY, record));
    }
    async deleteRootList() {
        await written(this.db.remove(ROOT_KEY));
    }
}
