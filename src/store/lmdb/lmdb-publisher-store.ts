/**
 * The trusted-publishing records in the LMDB database `publishers`. Keys: ['publisher', project, id],
 * ['jti', issuer, jti] → when it expires (ms), ['minted', hash] → the minted token. The jti check and its
 * write are one transaction, so two processes on one data directory cannot both use a token.
 */
import type { Database, RootDatabase } from 'lmdb';
import type { MintedTokenRecord, PublisherRecord, PublisherStore } from '../publisher-store.js';
import { after, type Key } from './environment.js';

type PublisherValue = PublisherRecord | MintedTokenRecord | number;

export class LmdbPublisherStore implements PublisherStore {
  private readonly db: Database<PublisherValue, Key>;

  constructor(root: RootDatabase) {
    this.db = root.openDB({ name: 'publishers' });
  }

  async addPublisher(record: PublisherRecord): Promise<void> {
    this.db.transactionSync(() => this.db.putSync(['publisher', record.project, record.id], record));
  }

  async removePublisher(project: string, id: string): Promise<boolean> {
    return this.db.transactionSync(() => this.db.removeSync(['publisher', project, id]));
  }

  async publishers(project?: string): Promise<PublisherRecord[]> {
    const range =
      project === undefined ? { start: ['publisher'], end: after('publisher') } : { start: ['publisher', project], end: ['publisher', `${project}\u0000`] };
    return Array.from(this.db.getRange(range), ({ value }) => value as PublisherRecord);
  }

  async publishersOf(issuer: string): Promise<PublisherRecord[]> {
    return (await this.publishers()).filter((p) => p.issuer === issuer);
  }

  async useJti(issuer: string, jti: string, expiresAt: number, now: number): Promise<boolean> {
    return this.db.transactionSync(() => {
      this.forgetExpired('jti', now, (value) => value as number);
      if (this.db.get(['jti', issuer, jti]) !== undefined) return false;
      this.db.putSync(['jti', issuer, jti], expiresAt);
      return true;
    });
  }

  async putMintedToken(record: MintedTokenRecord, now: number): Promise<void> {
    this.db.transactionSync(() => {
      this.forgetExpired('minted', now, (value) => (value as MintedTokenRecord).expiresAt);
      this.db.putSync(['minted', record.hash], record);
    });
  }

  async getMintedToken(hash: string): Promise<MintedTokenRecord | undefined> {
    return this.db.get(['minted', hash]) as MintedTokenRecord | undefined;
  }

  /** Inside a write transaction. */
  private forgetExpired(kind: string, now: number, expiry: (value: PublisherValue) => number): void {
    for (const { key, value } of this.db.getRange({ start: [kind], end: after(kind) })) {
      if (expiry(value) <= now) this.db.removeSync(key);
    }
  }
}
