/**
 * The cache protocol shared by upstream project pages and JSON documents: entries kept in LMDB with their
 * validators and in memory; fresh ones served without asking; stale ones revalidated (If-None-Match /
 * If-Modified-Since), one request in flight per document. A request for a stale document waits at most
 * `staleWait` for the upstream, then gets the stale copy while the revalidation goes on; an upstream
 * failure also serves the stale copy. Offline, the upstream is never asked.
 */
import type { Database } from 'lmdb';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { LarderError } from '../../errors.js';
import type { DiskSpace } from '../../store/disk-space.js';
import { written } from '../../store/lmdb-writes.js';
import type { StoreKey } from '../../store/meta-store.js';
import type { CacheState, SourceTrace } from '../../model/documents.js';
import type { CacheEvents } from './cache-events.js';
import { atMost } from './at-most.js';
import { offlineNotCached } from './cached-files.js';
import type { DocEntry } from './cache-records.js';
import type { Fetched, Validators } from './upstream-source.js';

export type DocKey = (string | number)[];

export interface DocumentCacheOptions {
  pageTtl: number;
  notFoundTtl: number;
  staleWait: number;
  offline: boolean;
  clock: Clock;
  space: DiskSpace;
  /** The client-facing error for an upstream failure with nothing cached. */
  failure(what: string, err: unknown): LarderError;
}

export interface DocumentRequest<T> {
  key: DocKey;
  /** For messages: "project foo". */
  what: string;
  fetch(validators: Validators | undefined): Promise<Fetched<T>>;
  merge(fresh: T, old: T | null): T;
  trace?: SourceTrace;
}

type Outcome<T> = { value: T | null; state: CacheState };

export class DocumentCache {
  /** Decoded entries, so a hot page is neither decoded from LMDB nor rebuilt per request. */
  private readonly memory = new LRUCache<string, DocEntry<unknown>>({ max: 5000 });
  private readonly inflight = new Map<string, Promise<Outcome<unknown>>>();

  constructor(
    private readonly docs: Database<DocEntry<unknown>, StoreKey>,
    private readonly options: DocumentCacheOptions,
    private readonly logger: Logger,
    private readonly events: CacheEvents,
  ) {}

  entry<T>(key: DocKey): DocEntry<T> | undefined {
    const id = key.join('\u0000');
    let entry = this.memory.get(id);
    if (!entry) {
      entry = this.docs.get(key);
      if (entry) this.memory.set(id, entry);
    }
    return entry as DocEntry<T> | undefined;
  }

  private store<T>(key: DocKey, entry: DocEntry<T>): void {
    this.memory.set(key.join('\u0000'), entry);
    void this.persist(key, entry);
  }

  /** Written in the background: a page that cannot be kept on disk is still served from memory. */
  private async persist<T>(key: DocKey, entry: DocEntry<T>): Promise<void> {
    if (!(await this.options.space.allows(0))) {
      this.events.diskFull?.('page', key.join(' '), null);
      return;
    }
    try {
      await written(this.docs.put(key, entry));
    } catch (err) {
      this.options.space.forget();
      this.events.storeFailed?.(`cached ${key.join(' ')}`, err as Error);
    }
  }

  private fresh(entry: DocEntry<unknown>): boolean {
    const age = this.options.clock.now() - entry.fetchedAt;
    return age < (entry.value === null ? this.options.notFoundTtl : this.options.pageTtl);
  }

  async get<T>(request: DocumentRequest<T>): Promise<T | null> {
    const entry = this.entry<T>(request.key);
    const report = (state: CacheState) => {
      if (request.trace) request.trace.cache = state;
    };
    if (this.options.offline) {
      if (!entry) throw offlineNotCached(request.what);
      report('hit');
      return entry.value;
    }
    if (entry && this.fresh(entry)) {
      report('hit');
      return entry.value;
    }
    const id = request.key.join('\u0000');
    let pending = this.inflight.get(id) as Promise<Outcome<T>> | undefined;
    if (!pending) {
      pending = this.refresh(request, entry).finally(() => this.inflight.delete(id));
      this.inflight.set(id, pending);
    }
    // With a stale copy to offer, the wait is bounded; the refresh goes on and lands in the cache.
    const stale = (): Outcome<T> => ({ value: entry!.value, state: 'stale' });
    const { value, state } = entry ? await atMost(pending, this.options.staleWait, stale) : await pending;
    report(state);
    return value;
  }

  private async refresh<T>(request: DocumentRequest<T>, entry: DocEntry<T> | undefined): Promise<Outcome<T>> {
    const { key, what } = request;
    try {
      const answer = await request.fetch(entry?.value ? entry.validators : undefined);
      const now = this.options.clock.now();
      if (answer.status === 'not-modified' && entry) {
        this.store(key, { ...entry, fetchedAt: now });
        return { value: entry.value, state: 'revalidated' };
      }
      if (answer.status === 'ok') {
        const value = request.merge(answer.value, entry?.value ?? null);
        this.store(key, { value, fetchedAt: now, validators: answer.validators });
        return { value, state: entry ? 'revalidated' : 'miss' };
      }
      this.store(key, { value: null, fetchedAt: now, validators: {} });
      return { value: null, state: entry ? 'revalidated' : 'miss' };
    } catch (err) {
      if (entry) {
        this.logger.warn({ err: (err as Error).message, what }, 'upstream failed; serving the stale cached copy');
        return { value: entry.value, state: 'stale' };
      }
      this.logger.warn({ err: (err as Error).message, what }, 'upstream failed and nothing is cached');
      throw this.options.failure(what, err);
    }
  }
}
