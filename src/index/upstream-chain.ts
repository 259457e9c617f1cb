/**
 * One upstream's part of the index: its HTTP client, `cached(upstream)` with its own cache namespace
 * (the first upstream keeps the default one, so a single LARDER_UPSTREAM behaves as before), and the
 * decorators that complete JSON API documents. app.ts builds one per configured upstream.
 */
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import { deriveJsonApi } from '../config/load.js';
import type { Config, UpstreamSpecOf } from '../config/schema.js';
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
import type { IndexSource } from './source.js';
import { CachedSource } from './sources/cached-source.js';
import { cachedWheelMetadata, coreMetadataFile, firstFound } from './sources/core-metadata-file.js';
import { JsonApiFromPages } from './sources/json-api-from-pages.js';
import { ReleaseMetadataFiller } from './sources/release-metadata.js';
import { UpstreamSource } from './sources/upstream-source.js';

/** The project list is large: it gets at least this long, however short the page deadline is. */
const ROOT_DEADLINE_MIN = 60_000;

export interface UpstreamChain {
  name: string;
  client: UpstreamClient;
  cache: CachedSource;
  /** The upstream as the overlay sees it: the cache, with JSON API documents completed. */
  source: IndexSource;
}

export interface ChainDeps {
  stores: Storage;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  space: DiskSpace;
  storage: StorageReporter;
  budget?: { added(id: CachedFileId): Promise<void> };
  /** Downloads shared with the other nodes of one blob store, when there are others. */
  crossNode?: CrossNodeDownloads;
}

/**
 * What a chain needs when a command (not the server) builds it: the command's own metrics registry, which
 * nothing scrapes (the chain only needs somewhere to count), and no cache bound unless the caller adds one.
 */
export function commandChainDeps(config: Config, stores: Storage, logger: Logger, clock: Clock): ChainDeps {
  const metrics = new Metrics(() => ({ private: { bytes: 0, files: 0 }, cached: stores.cachedFiles.totals() }), clock);
  return {
    stores,
    clock,
    logger,
    metrics,
    space: new DiskSpace(config.data, config.diskReserve, clock),
    storage: new StorageReporter(logger, metrics, clock),
  };
}

/** The settings as one upstream sees them: its URL, JSON API and credentials in place of the single upstream's. */
export function configFor(config: Config, spec: UpstreamSpecOf, first: boolean): Config {
  if (first && config.upstreams.length === 0) return config;
  return {
    ...config,
    upstream: spec.url,
    upstreamJsonApi: first && config.upstreams.length === 0 ? config.upstreamJsonApi : deriveJsonApi(spec.url),
    upstreamUsername: spec.username,
    upstreamPassword: spec.password,
  };
}

export function buildUpstreamChain(spec: UpstreamSpecOf, upstreamConfig: Config, first: boolean, deps: ChainDeps): UpstreamChain {
  const { stores, clock, logger, metrics, space, storage } = deps;
  const config = upstreamConfig;
  const upstreamUrl = config.upstream!;
  const origins = new OriginPolicy(upstreamUrl, config.upstreamJsonApi, config.fileHosts);
  const client = new UpstreamClient(config, origins, {
    request: () => metrics.upstreamRequests.inc(),
    failure: (kind) => {
      metrics.upstreamErrors.inc({ kind });
      if (kind === 'timeout') metrics.upstreamTimeouts.inc();
    },
  });
  const upstream = new UpstreamSource(client, {
    indexUrl: UpstreamClient.stripCredentials(upstreamUrl),
    jsonApiUrl: config.upstreamJsonApi,
    deadline: config.upstreamDeadline,
    rootDeadline: Math.max(ROOT_DEADLINE_MIN, config.upstreamDeadline),
  });
  const prefix = `${spec.name}/`;
  const budget = deps.budget;
  const namespaced: Pick<Storage, 'documents' | 'cachedFiles'> = first
    ? stores
    : { documents: stores.upstreamDocuments(spec.name), cachedFiles: new NamespacedCachedFiles(stores.cachedFiles, spec.name) };
  const cache = new CachedSource(
    upstream,
    namespaced,
    stores.blobs,
    {
      pageTtl: config.pageTtl,
      rootTtl: config.rootTtl,
      notFoundTtl: config.notFoundTtl,
      staleWait: Math.min(config.staleWait, config.upstreamDeadline),
      offline: config.offline,
      maxFileSize: config.maxFileSize,
      rootListFile: dataLayout(config.data).upstreamRootList(spec.name, first),
      clock,
      space,
      budget: budget && !first ? { added: (id) => budget.added({ ...id, project: prefix + id.project }) } : budget,
      crossNode: deps.crossNode,
    },
    first ? logger : logger.child({ upstream: spec.name }),
    {
      hashMismatch: () => metrics.hashMismatches.inc(),
      bytesFetched: (n) => metrics.upstreamFetchedBytes.inc(n),
      diskFull: (what, item, err) => storage.diskFull(what, item, err),
      storeFailed: (what, err) => storage.failed(what, err),
    },
  );
  const coreMetadata = firstFound([coreMetadataFile(cache, logger), cachedWheelMetadata(cache, readWheelMetadata, logger)]);
  const source = new ReleaseMetadataFiller(new JsonApiFromPages(cache, coreMetadata, cache, clock), [
    (name, release) => cache.getReleaseMetadata(name, release.version),
    coreMetadata,
  ]);
  return { name: spec.name, client, cache, source };
}

/** The configured upstreams: the `upstreams` list, else the one `upstream` (named after its host), else none. */
export function upstreamSpecs(config: Config): UpstreamSpecOf[] {
  if (config.upstreams.length) return config.upstreams;
  if (!config.upstream) return [];
  return [
    { name: new URL(config.upstream).hostname, url: config.upstream, projects: null, username: config.upstreamUsername, password: config.upstreamPassword },
  ];
}
