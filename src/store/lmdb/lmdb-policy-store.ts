/**
 * The policy records in the LMDB database `policy`. Keys: ['exemption', project, canonical version],
 * ['collision', project, upstream], and ['generation'], a counter bumped in the same transaction as every
 * exemption change so that a server sees the CLI's changes at its next read.
 */
import type { Database, RootDatabase } from 'lmdb';
import { canonicalVersion } from '../../model/versions.js';
import type { CollisionRecord, ExemptionRecord, PolicyStore } from '../policy-store.js';
import { after, type Key } from './environment.js';
import { written } from './written.js';

const GENERATION: Key = ['generation'];

type PolicyValue = ExemptionRecord | CollisionRecord | number;

export class LmdbPolicyStore implements PolicyStore {
  private readonly db: Database<PolicyValue, Key>;

  constructor(root: RootDatabase) {
    this.db = root.openDB({ name: 'policy' });
  }

  private exemptionKey(project: string, version: string): Key {
    return ['exemption', project, canonicalVersion(version)];
  }

  async getExemption(project: string, version: string): Promise<ExemptionRecord | undefined> {
    return this.db.get(this.exemptionKey(project, version)) as ExemptionRecord | undefined;
  }

  private changeExemption(change: () => boolean): boolean {
    return this.db.transactionSync(() => {
      const changed = change();
      if (changed) this.db.putSync(GENERATION, this.generation() + 1);
      return changed;
    });
  }

  async putExemption(record: ExemptionRecord): Promise<void> {
    this.changeExemption(() => {
      this.db.putSync(this.exemptionKey(record.project, record.version), record);
      return true;
    });
  }

  async deleteExemption(project: string, version: string): Promise<boolean> {
    return this.changeExemption(() => this.db.removeSync(this.exemptionKey(project, version)));
  }

  async exemptions(): Promise<ExemptionRecord[]> {
    return Array.from(this.db.getRange({ start: ['exemption'], end: after('exemption') }), ({ value }) => value as ExemptionRecord);
  }

  generation(): number {
    return (this.db.get(GENERATION) as number | undefined) ?? 0;
  }

  async getCollision(project: string, upstream: string): Promise<CollisionRecord | undefined> {
    return this.db.get(['collision', project, upstream]) as CollisionRecord | undefined;
  }

  async putCollision(record: CollisionRecord): Promise<void> {
    await written(this.db.put(['collision', record.project, record.upstream], record));
  }

  async collisions(): Promise<CollisionRecord[]> {
    return Array.from(this.db.getRange({ start: ['collision'], end: after('collision') }), ({ value }) => value as CollisionRecord);
  }
}
