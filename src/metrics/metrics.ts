/**
 * Prometheus metrics (prom-client), one registry per app: requests, cache results, the upstream,
 * bytes served from the cache and fetched from the upstream, hash mismatches, uploads, refusals (429, 503),
 * blob store size.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../base/clock.js';
import type { CacheState } from '../model/documents.js';

export interface StoreTotals {
  private: { bytes: number; files: number };
  cached: { bytes: number; files: number };
}

/** How long the summed store totals are reused: summing is linear in the records, scrapes come every few seconds. */
export const TOTALS_REUSE_MS = 5_000;

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'larder_http_requests_total',
    help: 'HTTP requests by route, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  });
  readonly requestDuration = new Histogram({
    name: 'larder_http_request_duration_seconds',
    help: 'Time to the response head and body being handed to the socket, by route.',
    labelNames: ['route', 'method'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly cacheResults = new Counter({
    name: 'larder_cache_results_total',
    help: 'Proxied answers by kind (page, file, metadata) and state (hit, miss, revalidated, stale).',
    labelNames: ['kind', 'state'],
    registers: [this.registry],
  });
  readonly upstreamRequests = new Counter({
    name: 'larder_upstream_requests_total',
    help: 'Requests sent to the upstream (retries included).',
    registers: [this.registry],
  });
  readonly upstreamErrors = new Counter({
    name: 'larder_upstream_errors_total',
    help: 'Failed upstream requests by kind (timeout, unreachable, status, invalid, refused).',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly upstreamTimeouts = new Counter({ name: 'larder_upstream_timeouts_total', help: 'Upstream requests that timed out.', registers: [this.registry] });
  readonly cacheServedBytes = new Counter({
    name: 'larder_cache_served_bytes_total',
    help: 'Bytes of cached upstream files served from disk (bytes the upstream did not have to send).',
    registers: [this.registry],
  });
  readonly upstreamFetchedBytes = new Counter({
    name: 'larder_upstream_fetched_bytes_total',
    help: 'Bytes of verified files fetched from the upstream.',
    registers: [this.registry],
  });
  readonly hashMismatches = new Counter({
    name: 'larder_hash_mismatches_total',
    help: 'Upstream files refused because their hash or size did not match the index.',
    registers: [this.registry],
  });
  readonly uploads = new Counter({
    name: 'larder_uploads_total',
    help: 'Uploads by outcome (created, identical, refused).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly diskFull = new Counter({
    name: 'larder_disk_full_total',
    help: 'Things not kept or refused because the data disk was full or below LARDER_DISK_RESERVE, by what (file, page, upload).',
    labelNames: ['what'],
    registers: [this.registry],
  });
  readonly storeFailures = new Counter({
    name: 'larder_store_failures_total',
    help: 'Cache writes that failed for another reason (what they concerned was still served).',
    registers: [this.registry],
  });
  readonly loginRefusals = new Counter({
    name: 'larder_login_refusals_total',
    help: 'Logins refused before their credentials were judged, by reason: rate_limited (429, failed-login limits), hashing_busy (503, password-check queue full).',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly refusals = new Counter({
    name: 'larder_http_refusals_total',
    help: 'Requests refused with 429 or 503, by status and error code (too_many_failed_logins, password_checks_busy, backend_unavailable, …).',
    labelNames: ['status', 'code'],
    registers: [this.registry],
  });
  readonly evictions = new Counter({
    name: 'larder_cache_evictions_total',
    help: 'Cached upstream files evicted to stay under LARDER_CACHE_MAX_SIZE.',
    registers: [this.registry],
  });
  readonly descriptionRenders = new Counter({
    name: 'larder_description_renders_total',
    help: 'Release descriptions shown on project pages, by outcome (cached, rendered, text, too_large, timeout, failed, unavailable, busy, closed).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  constructor(totals: () => Promise<StoreTotals>, clock: Clock, totalsReuseMs = TOTALS_REUSE_MS) {
    collectDefaultMetrics({ register: this.registry, prefix: 'larder_' });
    let last: { at: number; totals: Promise<StoreTotals> } | null = null;
    const refresh = (): Promise<StoreTotals> => {
      const now = clock.now();
      if (!last || now - last.at > totalsReuseMs) {
        const counting = totals();
        last = { at: now, totals: counting };
        // A count that failed is not reused: the next scrape counts again.
        counting.catch(() => {
          if (last?.totals === counting) last = null;
        });
      }
      return last.totals;
    };
    for (const [name, help, field] of [
      ['larder_blob_store_bytes', 'Bytes in the blob store by kind (private, cached).', 'bytes'],
      ['larder_blob_store_files', 'Files in the blob store by kind (private, cached).', 'files'],
    ] as const) {
      new Gauge({
        name,
        help,
        labelNames: ['kind'],
        registers: [this.registry],
        async collect() {
          const t = await refresh();
          this.set({ kind: 'private' }, t.private[field]);
          this.set({ kind: 'cached' }, t.cached[field]);
        },
      });
    }
  }

  /** Per-label children, so the hot path does not hash label objects on every request. */
  private readonly requestChildren = new Map<string, { count: ReturnType<Counter['labels']>; duration: ReturnType<Histogram['labels']> }>();

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    let child = this.requestChildren.get(key);
    if (!child) {
      child = { count: this.requests.labels(route, method, String(status)), duration: this.requestDuration.labels(route, method) };
      this.requestChildren.set(key, child);
    }
    child.count.inc();
    child.duration.observe(seconds);
  }

  private readonly cacheChildren = new Map<string, ReturnType<Counter['labels']>>();

  cacheResult(kind: 'page' | 'file' | 'metadata', state: CacheState): void {
    const key = `${kind} ${state}`;
    let child = this.cacheChildren.get(key);
    if (!child) {
      child = this.cacheResults.labels(kind, state);
      this.cacheChildren.set(key, child);
    }
    child.inc();
  }
}
