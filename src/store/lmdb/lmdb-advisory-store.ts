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
const PAGE = 1000;

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

  /** Read a page at a time with a turn of the event loop between: a whole OSV export is some 20,000 entries. */
  async entries(): Promise<AdvisoryEntry[]> {
    const all: AdvisoryEntry[] = [];
    let start: Key = ['entry'];
    for (;;) {
      const page: AdvisoryEntry[] = Array.from(this.db.getRange({ start, end: after('entry'), limit: PAGE }), ({ value }) => value as AdvisoryEntry);
      all.push(...page);
      const last = page.at(-1);
      if (page.length < PAGE || !last) return all;
      // The key just after the last one read ('\0' sorts before every other character).
      start = ['entry', last.project, `${last.id}\u0000`];
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  async info(): Promise<AdvisorySetInfo | undefined> {
    return this.db.get(INFO) as AdvisorySetInfo | undefined;
  }

  generation(): number {
    return (this.db.get(GENERATION) as number | undefined) ?? 0;
  }
}
