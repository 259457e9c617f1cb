/**
 * The cache protocol shared by upstream project pages and JSON documents: entries kept in LMDB with their
 * validators and in memory; fresh ones served without asking; stale ones revalidated (If-None-Match /
 * If-Modified-Since), one request in flight per document. A request for a stale document waits at most
 * `staleWait` for the upstream, then gets the stale copy while the revalidation goes on; an upstream
 * failure also serves the stale copy. Offline, the upstream is never asked. A document the upstream sent
 * that larder refuses to read (over a limit on untrusted content) is remembered as refused for as long as a
 * 404 is, so that each request does not fetch and parse it again.
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import type { LarderError } from '../base/errors.js';
import type { DiskSpace } from '../store/disk-space.js';
import type { CachedDocument } from '../store/records.js';
import { documentLabel, type CachedDocumentId, type UpstreamDocumentStore } from '../store/upstream-document-store.js';
import { type CacheState, type Sourced, sourced } from '../model/documents.js';
import type { CacheEvents } from './cache-events.js';
import { atMost } from '../base/at-most.js';
import { UpstreamError } from '../upstream/upstream-error.js';
import { offlineNotCached } from './offline.js';
import type { Fetched, Validators } from '../upstream/upstream-fetcher.js';

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
  id: CachedDocumentId;
  /** For messages: "project foo". */
  what: string;
  fetch(validators: Validators | undefined): Promise<Fetched<T>>;
  merge(fresh: T, old: T | null): T;
}

type Outcome<T> = { value: T | null; state: CacheState };

export class DocumentCache {
  /** Decoded entries, so a hot page is neither decoded from LMDB nor rebuilt per request (ready-to-send pages sit in front). */
  private readonly memory = new LRUCache<string, CachedDocument<unknown>>({ max: 1000 });
  private readonly inflight = new Map<string, Promise<Outcome<unknown>>>();
  /** Documents refused as unreadable, and until when that answer stands. */
  private readonly refused = new LRUCache<string, { err: unknown; until: number }>({ max: 1000 });
  /** Background writes not finished yet. */
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly docs: UpstreamDocumentStore,
    private readonly options: DocumentCacheOptions,
    private readonly logger: Logger,
    private readonly events: CacheEvents,
  ) {}

  entry<T>(id: CachedDocumentId): CachedDocument<T> | undefined {
    const label = documentLabel(id);
    let entry = this.memory.get(label);
    if (!entry) {
      entry = this.docs.get(id);
      if (entry) this.memory.set(label, entry);
    }
    return entry as CachedDocument<T> | undefined;
  }

  private store<T>(id: CachedDocumentId, entry: CachedDocument<T>): void {
    this.memory.set(documentLabel(id), entry);
    const write: Promise<void> = this.persist(id, entry).finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  /** Resolves once the background writes are done: a command waits for it before it closes the store. */
  async settled(): Promise<void> {
    while (this.writes.size) await Promise.all(this.writes);
  }

  /** Written in the background: a page that cannot be kept on disk is still served from memory. */
  private async persist<T>(id: CachedDocumentId, entry: CachedDocument<T>): Promise<void> {
    if (!(await this.options.space.allows(0))) {
      this.events.diskFull?.('page', documentLabel(id), null);
      return;
    }
    try {
      await this.docs.put(id, entry);
    } catch (err) {
      this.options.space.forget();
      this.events.storeFailed?.(`cached ${documentLabel(id)}`, err as Error);
    }
  }

  private fresh(entry: CachedDocument<unknown>): boolean {
    const age = this.options.clock.now() - entry.fetchedAt;
    return age < (entry.value === null ? this.options.notFoundTtl : this.options.pageTtl);
  }

  /** The document (null: the upstream has none) and how the cache answered. */
  async get<T>(request: DocumentRequest<T>): Promise<Sourced<T | null>> {
    const entry = this.entry<T>(request.id);
    const report = (value: T | null, cache: CacheState) => sourced(value, { cache });
    if (this.options.offline) {
      if (!entry) throw offlineNotCached(request.what);
      return report(entry.value, 'hit');
    }
    if (entry && this.fresh(entry)) return report(entry.value, 'hit');
    const label = documentLabel(request.id);
    const refused = this.refused.get(label);
    if (refused && this.options.clock.now() < refused.until) {
      if (entry) return report(entry.value, 'stale');
      throw this.options.failure(request.what, refused.err);
    }
    let pending = this.inflight.get(label) as Promise<Outcome<T>> | undefined;
    if (!pending) {
      pending = this.refresh(request, entry).finally(() => this.inflight.delete(label));
      this.inflight.set(label, pending);
    }
    // With a stale copy to offer, the wait is bounded; the refresh goes on and lands in the cache.
    const stale = (): Outcome<T> => ({ value: entry!.value, state: 'stale' });
    const { value, state } = entry ? await atMost(pending, this.options.staleWait, stale) : await pending;
    return report(value, state);
  }

  private async refresh<T>(request: DocumentRequest<T>, entry: CachedDocument<T> | undefined): Promise<Outcome<T>> {
    const { id, what } = request;
    try {
      const answer = await request.fetch(entry?.value ? entry.validators : undefined);
      const now = this.options.clock.now();
      if (answer.status === 'not-modified' && entry) {
        this.store(id, { ...entry, fetchedAt: now });
        return { value: entry.value, state: 'revalidated' };
      }
      if (answer.status === 'ok') {
        const value = request.merge(answer.value, entry?.value ?? null);
        this.store(id, { value, fetchedAt: now, validators: answer.validators });
        return { value, state: entry ? 'revalidated' : 'miss' };
      }
      this.store(id, { value: null, fetchedAt: now, validators: {} });
      return { value: null, state: entry ? 'revalidated' : 'miss' };
    } catch (err) {
      if (err instanceof UpstreamError && err.kind === 'invalid') {
        this.refused.set(documentLabel(id), { err, until: this.options.clock.now() + this.options.notFoundTtl });
      }
      if (entry) {
        this.logger.warn({ err: (err as Error).message, what }, 'upstream failed; serving the stale cached copy');
        return { value: entry.value, state: 'stale' };
      }
      this.logger.warn({ err: (err as Error).message, what }, 'upstream failed and nothing is cached');
      throw this.options.failure(what, err);
    }
  }
}
