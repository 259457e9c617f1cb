/**
 * A bounded per-node cache of database reads, emptied by the change feed: an answer is kept only while
 * the node hears the other nodes' changes, and only when no change was heard while it was read. Requests
 * for a key not cached share one query while no change is heard. When the database cannot be reached,
 * the last answer kept is served (perhaps stale: better than failing a page the node served a moment ago).
 */
import { LRUCache } from 'lru-cache';
import { BackendUnavailable } from '../backend-unavailable.js';
import type { ChangeFeed } from './change-feed.js';

export interface ReadCacheOptions<V> {
  /** Most entries, and most total size (by `size`, 1 each when absent). */
  max: number;
  maxSize?: number;
  size?: (value: V) => number;
  /** The keys a scope names (`project:demo` → `demo`), undefined when the scope is not this cache's. */
  keyOf: (scope: string) => string | string[] | undefined;
}

/** `undefined` is an answer too (no such record): kept as `absent`. */
const absent = Symbol('absent');

export class ReadCache<V> {
  private readonly entries: LRUCache<string, { value: V | typeof absent }>;
  /** Queries in flight, with the epoch each started in. */
  private readonly loading = new Map<string, { epoch: number; value: Promise<V | undefined> }>();

  constructor(
    private readonly feed: ChangeFeed,
    options: ReadCacheOptions<V>,
  ) {
    const { size } = options;
    this.entries = new LRUCache({
      max: options.max,
      ...(options.maxSize ? { maxSize: options.maxSize, sizeCalculation: (e) => (size && e.value !== absent ? Math.max(1, size(e.value)) : 1) } : {}),
    });
    feed.subscribe((scopes) => {
      if (scopes === null) return this.entries.clear();
      for (const scope of scopes) {
        const keys = options.keyOf(scope);
        for (const key of typeof keys === 'string' ? [keys] : (keys ?? [])) this.entries.delete(key);
      }
    });
  }

  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const kept = this.entries.get(key);
    if (kept && this.feed.listening) return kept.value === absent ? undefined : kept.value;
    const epoch = this.feed.epoch;
    let value: V | undefined;
    try {
      value = await this.shared(key, epoch, load);
    } catch (err) {
      if (kept && err instanceof BackendUnavailable) return kept.value === absent ? undefined : kept.value;
      throw err;
    }
    if (this.feed.listening && this.feed.epoch === epoch) this.entries.set(key, { value: value === undefined ? absent : value });
    return value;
  }

  /** One query for every request of `key` while the epoch is the same (and changes are heard). */
  private shared(key: string, epoch: number, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (!this.feed.listening) return load();
    const running = this.loading.get(key);
    if (running?.epoch === epoch) return running.value;
    const value = load();
    const entry = { epoch, value };
    this.loading.set(key, entry);
    const done = () => {
      if (this.loading.get(key) === entry) this.loading.delete(key);
    };
    value.then(done, done);
    return value;
  }
}
