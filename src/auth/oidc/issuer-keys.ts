/**
 * The signing keys of each allowed issuer: fetched on first need, kept, and fetched again when a token names
 * a key id the set lacks, at most once a minute per issuer (a failed fetch counts too), so a stream of
 * forged `kid`s cannot make larder hammer an issuer. Concurrent needs share one fetch.
 */
import type { Clock } from '../../base/clock.js';
import type { JsonWebKeySet } from './issuer-documents.js';

export const REFETCH_INTERVAL_MS = 60_000;

interface Entry {
  keys: JsonWebKeySet | null;
  fetchedAt: number;
  pending: Promise<JsonWebKeySet> | null;
}

export class IssuerKeys {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly fetchKeySet: (issuer: string) => Promise<JsonWebKeySet>,
    private readonly clock: Clock,
  ) {}

  /** The keys held for `issuer`, fetched when there are none (or when `stale` and the last fetch is a minute old). */
  async keys(issuer: string, stale = false): Promise<JsonWebKeySet> {
    const entry = this.entries.get(issuer);
    if (entry?.pending) return entry.pending;
    const recent = entry !== undefined && this.clock.now() - entry.fetchedAt < REFETCH_INTERVAL_MS;
    if (entry?.keys && (!stale || recent)) return entry.keys;
    if (entry && recent) throw new Error(`the keys of ${issuer} could not be fetched (tried less than a minute ago)`);
    return this.fetch(issuer, entry);
  }

  private fetch(issuer: string, previous: Entry | undefined): Promise<JsonWebKeySet> {
    const entry: Entry = { keys: previous?.keys ?? null, fetchedAt: this.clock.now(), pending: null };
    entry.pending = this.fetchKeySet(issuer).then(
      (keys) => {
        entry.keys = keys;
        entry.pending = null;
        return keys;
      },
      (err: unknown) => {
        entry.pending = null;
        throw err;
      },
    );
    this.entries.set(issuer, entry);
    return entry.pending;
  }
}
