/**
 * One upstream's part of the index: its HTTP client, `cached(upstream)` in the upstream's cache namespace
 * (the first upstream keeps the default one, so a single LARDER_UPSTREAM behaves as before), and the
 * decorators that complete JSON API documents. app.ts builds one per entry of `config.upstreams`.
 */
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import type { Config, Upstream } from '../config/schema.js';
import { Metrics } from '../metrics/metrics.js';
import { StorageReporter } from '../metrics/storage-reporter.js';
import type { CachedFileId } from '../store/cached-file-index.js';
import { dataLayout } from '../store/data-layout.js';
import { DiskSpace } from '../store/disk-space.js';
import { NamespacedCachedFiles } from '../store/namespaced-cached-files.js';
import type { CrossNodeDownloads } from '../download/cross-node-downloads.js';
import type { Storage } from '../store/storage.js';
import { readWheelMetadata } from '../archive/dist-metadata.js';
import { UpstreamClient } from '../upstream/client.js';
import { OriginPolicy } from '../upstream/origin-policy.js';
import type { PackageSource } from './package-source.js';
import { CachedSource } from './cached-source.js';
import { cachedWheelMetadata, coreMetadataFile, firstFound } from './core-metadata-file.js';
import { JsonApiFromPages } from './json-api-from-pages.js';
import { ReleaseMetadataFiller } from './release-metadata.js';
import { UpstreamFetcher } from '../upstream/upstream-fetcher.js';
import { namePattern } from '../model/requirements.js';
import { type AnswerKind, UpstreamRouter } from './upstream-router.js';

/** The project list is large: it gets at least this long, however short the page deadline is. */
const ROOT_DEADLINE_MIN = 60_000;

export interface UpstreamChain {
  name: string;
  client: UpstreamClient;
  cache: CachedSource;
  /** The upstream as the overlay sees it: the cache, with JSON API documents completed. */
  source: PackageSource;
}

export interface ChainDeps {
  stores: Storage;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  space: DiskSpace;
  storageReporter: StorageReporter;
  budget?: { added(id: CachedFileId): Promise<void> };
  /** Downloads shared with the other nodes of one blob store, when there are others. */
  crossNode?: CrossNodeDownloads;
}

/**
 * What a chain needs when a command (not the server) builds it: the command's own metrics registry, which
 * nothing scrapes (the chain only needs somewhere to count), and no cache bound unless the caller adds one.
 */
export function commandChainDeps(config: Config, stores: Storage, logger: Logger, clock: Clock): ChainDeps {
  const metrics = new Metrics(async () => ({ private: { bytes: 0, files: 0 }, cached: await stores.cachedFiles.totals() }), clock);
  return {
    stores,
    clock,
    logger,
    metrics,
    space: new DiskSpace(config.data, config.diskReserve, clock),
    storageReporter: new StorageReporter(logger, metrics, clock),
  };
}

/** Where one upstream's cache lives: the default storage (namespace null), or its own namespace of it. */
function cacheSpace(upstream: Upstream, deps: ChainDeps): { storage: Pick<Storage, 'documents' | 'cachedFiles'>; budget: ChainDeps['budget']; logger: Logger } {
  const { stores, budget, logger } = deps;
  const ns = upstream.cacheNamespace;
  if (ns === null) return { storage: stores, budget, logger };
  return {
    storage: { documents: stores.upstreamDocuments(ns), cachedFiles: new NamespacedCachedFiles(stores.cachedFiles, ns) },
    budget: budget && { added: (id) => budget.added({ ...id, project: `${ns}/${id.project}` }) },
    logger: logger.child({ upstream: upstream.name }),
  };
}

export function buildUpstreamChain(spec: Upstream, config: Config, deps: ChainDeps): UpstreamChain {
  const { stores, clock, logger, metrics, space, storageReporter } = deps;
  const origins = new OriginPolicy(spec.url, spec.jsonApi, config.fileHosts);
  const client = new UpstreamClient(spec, config, origins, {
    request: () => metrics.upstreamRequests.inc(),
    failure: (kind) => {
      metrics.upstreamErrors.inc({ kind });
      if (kind === 'timeout') metrics.upstreamTimeouts.inc();
    },
  });
  const upstream = new UpstreamFetcher(client, {
    indexUrl: UpstreamClient.stripCredentials(spec.url),
    jsonApiUrl: spec.jsonApi,
    deadline: spec.deadline,
    rootDeadline: Math.max(ROOT_DEADLINE_MIN, spec.deadline),
  });
  const own = cacheSpace(spec, deps);
  const cache = new CachedSource(
    upstream,
    own.storage,
    stores.blobs,
    {
      pageTtl: config.pageTtl,
      rootTtl: config.rootTtl,
      notFoundTtl: config.notFoundTtl,
      staleWait: Math.min(config.staleWait, spec.deadline),
      offline: config.offline,
      maxFileSize: config.maxFileSize,
      rootListFile: dataLayout(config.data).upstreamRootList(spec.cacheNamespace),
      clock,
      space,
      budget: own.budget,
      crossNode: deps.crossNode,
    },
    own.logger,
    {
      hashMismatch: () => metrics.hashMismatches.inc(),
      bytesFetched: (n) => metrics.upstreamFetchedBytes.inc(n),
      diskFull: (what, item, err) => storageReporter.diskFull(what, item, err),
      storeFailed: (what, err) => storageReporter.failed(what, err),
    },
  );
  const coreMetadata = firstFound([coreMetadataFile(cache, logger), cachedWheelMetadata(cache, readWheelMetadata, logger)]);
  const source = new ReleaseMetadataFiller(new JsonApiFromPages(cache, coreMetadata, cache, clock), [
    (name, release) => cache.getReleaseMetadata(name, release.version),
    coreMetadata,
  ]);
  return { name: spec.name, client, cache, source };
}

/**
 * The chains routed as the server routes them: each upstream takes the projects its `projects` patterns
 * name, the first the rest. `sourceOf` may put a decorator around a chain's source (the server watches
 * for name collisions there); `answered` counts which upstream answered what.
 */
export function routeChains(
  chains: readonly UpstreamChain[],
  upstreams: readonly Upstream[],
  options: { sourceOf?: (chain: UpstreamChain) => PackageSource; answered?: (upstream: string, kind: AnswerKind) => void } = {},
): UpstreamRouter {
  return new UpstreamRouter(
    chains.map((chain, i) => ({
      name: chain.name,
      source: options.sourceOf?.(chain) ?? chain.source,
      cachedPage: (name) => chain.cache.cachedPage(name),
      patterns: upstreams[i]!.projects?.map(namePattern) ?? null,
    })),
    options.answered,
  );
}
