/**
 * The advisories in the LMDB database `advisories`. Keys: ['entry', project, id], ['info'], and
 * ['generation'], a counter bumped in the transaction of every import so that a server sees the CLI's
 * import at its next read.
 */
import type { Database, RootDatabase } from 'lmdb';
import type { AdvisoryEntry, AdvisorySetInfo, AdvisoryStore } from '../advisory-store.js';
import { after, type Key } from './environment.js';

const GENERATION: Key = ['generation'];
const INFO: Key = ['info'];

type AdvisoryValue = AdvisoryEntry | AdvisorySetInfo | number;

export class LmdbAdvisoryStore implements AdvisoryStore {
  private readonly db: Database<AdvisoryValue, Key>;

  constructor(root: RootDatabase) {
    this.db = root.openDB({ name: 'advisories' });
  }

  async replaceAll(entries: readonly AdvisoryEntry[], info: AdvisorySetInfo): Promise<void> {
    await this.db.transaction(() => {
      for (const key of this.db.getKeys({ start: ['entry'], end: after('entry') })) this.db.removeSync(key);
      for (const entry of entries) this.db.putSync(['entry', entry.project, entry.id], entry);
      this.db.putSync(INFO, info);
      this.db.putSync(GENERATION, this.generation() + 1);
    });
  }

  async entries(): Promise<AdvisoryEntry[]> {
    return Array.from(this.db.getRange({ start: ['entry'], end: after('entry') }), ({ value }) => value as AdvisoryEntry);
  }

  async info(): Promise<AdvisorySetInfo | undefined> {
    return this.db.get(INFO) as AdvisorySetInfo | undefined;
  }

  generation(): number {
    return (this.db.get(GENERATION) as number | undefined) ?? 0;
  }
}
