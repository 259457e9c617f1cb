import { canonicalVersion } from '../../model/versions.js';
import { after } from './environment.js';
import { written } from './written.js';
const GENERATION = ['generation'];
export class LmdbPolicyStore {
    db;
    constructor(root) {
        this.db = root.openDB({ name: 'policy' });
    }
    exemptionKey(project, version) {
        return ['exemption', project, canonicalVersion(version)];
    }
    getExemption(project, version) {
        return this.db.get(this.exemptionKey(project, version));
    }
    changeExemption(change) {
        return this.db.transactionSync(() => {
            const changed = change();
            if (changed)
                this.db.putSync(GENERATION, this.generation() + 1);
            return changed;
        });
    }
    async putExemption(record) {
        this.changeExemption(() => {
            this.db.putSync(this.exemptionKey(record.project, record.version), record);
            return true;
        });
    }
    async deleteExemption(project, version) {
        return this.changeExemption(() => this.db.removeSync(this.exemptionKey(project, version)));
    }
    *exemptions() {
        for (const { value } of this.db.getRange({ start: ['exemption'], end: after('exemption') }))
            yield value;
    }
    generation() {
        return this.db.get(GENERATION) ?? 0;
    }
    getCollision(project, upstream) {
        return this.db.get(['collision', project, upstream]);
    }
    async putCollision(record) {
        await written(this.db.put(['collision', record.project, record.upstream], record));
    }
    *collisions() {
        for (const { value } of this.db.getRange({ start: ['collision'], end: after('collision') }))
            yield value;
    }
}
