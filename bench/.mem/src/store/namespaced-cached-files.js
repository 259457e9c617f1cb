export class NamespacedCachedFiles {
    inner;
    prefix;
    constructor(inner, upstream) {
        this.inner = inner;
        this.prefix = `${upstream}/`;
    }
    outer(id) {
        return { ...id, project: this.prefix + id.project };
    }
    get(id) {
        return this.inner.get(this.outer(id));
    }
    put(id, record) {
        return this.inner.put(this.outer(id), record);
    }
    touch(id, record, at) {
        return this.inner.touch(this.outer(id), record, at);
    }
    delete(id) {
        return this.inner.delete(this.outer(id));
    }
    *entries() {
        for (const { id, record } of this.inner.entries()) {
            if (id.project.startsWith(this.prefix))
                yield { id: { ...id, project: id.project.slice(this.prefix.length) }, record };
        }
    }
    totals() {
        let bytes = 0;
        let files = 0;
        for (const { record } of this.entries()) {
            bytes += record.size;
            files++;
        }
        return { bytes, files };
    }
}
