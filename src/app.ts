/** The composition root: builds stores, sources and the HTTP app from one Config. The only place that wires. */
import { collectStats, latestPrivateFileTotals, reusedStats } from './store/stats.js';
import { access, constants, mkdir } from 'node:fs/promises';
import Koa from 'koa';
import type { Logger } from 'pino';
import { Authenticator } from './auth/authenticator.js';
import { IssuerDocuments } from './auth/oidc/issuer-documents.js';
import { IssuerKeys } from './auth/oidc/issuer-keys.js';
import { TokenExchange } from './auth/oidc/token-exchange.js';
import { PublisherAdmin } from './upload/publisher-admin.js';
import { AuditMetrics } from './audit/audit-metrics.js';
import { DownloadAudit } from './audit/download-audit.js';
import { clientAddressOf } from './http/client-address.js';
import { LoginLimiter } from './auth/login-limiter.js';
import { PasswordHasher } from './auth/password-hasher.js';
import { systemClock, type Clock } from './base/clock.js';
import type { Config } from './config/schema.js';
import type { HttpDeps } from './http/deps.js';
import { crossSiteGuard } from './http/cross-site.js';
import { errorMiddleware } from './http/error-middleware.js';
import { readAuthMiddleware } from './http/read-auth.js';
import { RenderedCache } from './http/rendered-cache.js';
import { oneEntry } from './http/entry.js';
import { hostGate } from './http/host-header.js';
import { HttpServer } from './http/http-server.js';
import { warmUp } from './http/warm-up.js';
import { smallBodyCache } from './http/file-answer.js';
import { memoNegotiator } from './http/negotiate.js';
import { requestLog, requestRecorder } from './http/request-log.js';
import { routeTable } from './http/route-table.js';
import { RootRenderCache } from './http/root-render-cache.js';
import { ProjectAdmin } from './upload/project-admin.js';
import { CacheBudget } from './cache/cache-budget.js';
import { CrossNodeDownloads, sharedDownloadOptions } from './download/cross-node-downloads.js';
import type { CachedFiles } from './download/cached-files.js';
import { OverlaySource } from './sources/overlay-source.js';
import { PrivateSource } from './sources/private-source.js';
import { UpstreamNameCheck } from './upload/upstream-names.js';
import { buildUpstreamChain, routeChains } from './sources/upstream-chain.js';
import { PolicyMetrics } from './policy/policy-metrics.js';
import { CollisionWatch } from './policy/collision-watch.js';
import { Policy, type PolicyRules } from './policy/policy.js';
import { PolicySource } from './policy/policy-source.js';
import { Advisories } from './policy/advisories.js';
import { AdvisoryMetrics } from './policy/advisory-metrics.js';
import { AdvisorySource, combinedHolds } from './policy/advisory-source.js';
import { createLogger } from './logger.js';
import { responseFailureLog } from './http/logged-error.js';
import { loadSessionKey } from './web/session.js';
import { DescriptionThread } from './web/description-thread.js';
import { Descriptions } from './web/descriptions.js';
import { registerWebPages } from './web/web-ui.js';
import { StorageReporter } from './metrics/storage-reporter.js';
import { Metrics } from './metrics/metrics.js';
import { BackendMetrics } from './metrics/backend-metrics.js';
import { EventLoopDelay } from './metrics/event-loop-delay.js';
import type { BlobStore } from './store/blob-store.js';
import { dataLayout } from './store/data-layout.js';
import { DiskSpace } from './store/disk-space.js';
import type { IndexStore } from './store/index-store.js';
import { openBackends, type BackendObserve } from './store/open-backends.js';
import type { Storage } from './store/storage.js';
import { Publisher } from './upload/publish.js';

export interface Larder {
  config: Config;
  logger: Logger;
  storage: Storage;
  /** The private index (`storage.index`). */
  meta: IndexStore;
  blobs: BlobStore;
  metrics: Metrics;
  /** The download audit (null with LARDER_AUDIT=false); `flush()` writes what it holds. */
  audit: DownloadAudit | null;
  koa: Koa;
  /** Replaces the deny and allow lists and the cooldown (SIGHUP); throws, keeping the old rules, when they do not parse. */
  reloadPolicy(rules: PolicyRules): void;
  /** Starts listening; resolves with the URL the server is reachable at. */
  listen(): Promise<string>;
  /**
   * Stops accepting connections, lets in-flight requests and upstream downloads finish for up to
   * `graceMs` (default: the configured grace), then closes every connection and the store.
   */
  close(graceMs?: number): Promise<void>;
}

async function openDataDir(config: Config, observe: BackendObserve, logger: Logger): Promise<Storage> {
  await mkdir(config.data, { recursive: true });
  try {
    await access(config.data, constants.W_OK);
  } catch {
    throw new Error(`data directory ${config.data} is not writable`);
  }
  const storage = await openBackends(config, observe);
  try {
    await storage.blobs.init();
    // A shared blob store that cannot be reached now is reported by /health; the node still starts.
    await storage.blobs.purgeTmp().catch((err: Error) => {
      if (config.blobStore === null) throw err;
      logger.warn({ err: err.message }, 'could not clear abandoned uploads in the blob store');
    });
  } catch (err) {
    await storage.close();
    throw err;
  }
  return storage;
}

export interface LarderOptions {
  logger?: Logger;
  clock?: Clock;
  /** How long download records wait before they are written (1 s). */
  auditFlushMs?: number;
}

export async function createLarder(config: Config, options: LarderOptions = {}): Promise<Larder> {
  const logger = options.logger ?? createLogger(config);
  const clock = options.clock ?? systemClock;
  let cachedFiles: CachedFiles | null = null;
  let privateTotals = async () => ({ bytes: 0, files: 0 });
  const metrics = new Metrics(async () => ({ private: await privateTotals(), cached: (await cachedFiles?.totals()) ?? { bytes: 0, files: 0 } }), clock);
  const backendMetrics = new BackendMetrics(metrics.registry);
  const stores = await openDataDir(config, (backend) => backendMetrics.observer(backend), logger);
  const { index: meta, blobs } = stores;
  privateTotals = latestPrivateFileTotals(meta);

  const privateSource = new PrivateSource(meta, blobs);
  const space = new DiskSpace(config.data, config.diskReserve, clock);
  const storageReporter = new StorageReporter(logger, metrics, clock);
  const policyMetrics = new PolicyMetrics(metrics.registry, logger, async () => (await stores.policy.collisions()).length);
  const policy = new Policy(config, stores.policy, clock);
  const budget = config.cacheMaxSize === null ? undefined : new CacheBudget(stores, config.cacheMaxSize, logger, (files) => metrics.evictions.inc(files));
  // Nodes share a download only where they share a lock (the database) and the parts (the blob store).
  const crossNode =
    config.databaseUrl === null || blobs.parts === null
      ? undefined
      : new CrossNodeDownloads(stores.downloadLocks, blobs, blobs.parts, sharedDownloadOptions(config.sharedDownloadWait), (what, err) =>
          logger.warn({ err: err.message }, `shared download: ${what} failed`),
        );
  const chains = config.upstreams.map((upstream) =>
    buildUpstreamChain(upstream, config, { stores, clock, logger, metrics, space, storageReporter, budget, crossNode }),
  );
  const clients = chains.map((c) => c.client);
  cachedFiles = chains[0]?.cache.files ?? null;
  const upstreamRouter = chains.length
    ? routeChains(chains, config.upstreams, {
        sourceOf: (chain) => new CollisionWatch(chain.source, chain.name, privateSource, stores.policy, clock, logger),
        answered: (upstream, kind) => policyMetrics.upstreamAnswers.inc({ upstream, kind }),
      })
    : null;
  const advisories = new Advisories(config, stores.advisories, stores.policy);
  const advisorySource = upstreamRouter ? new AdvisorySource(upstreamRouter, advisories, new AdvisoryMetrics(metrics.registry, logger)) : null;
  /** The upstream as the overlay sees it: routed, with the advisories and the supply-chain policy applied. */
  const upstreamSource = advisorySource ? new PolicySource(advisorySource, policy, policyMetrics) : null;
  const upstreamNames = upstreamRouter ? new UpstreamNameCheck(upstreamRouter, config.offline) : null;
  const passwords = new PasswordHasher();
  const descriptionThread = new DescriptionThread({
    onWorkerFailure: (err) => logger.warn({ err: err.message }, 'the description worker stopped; the descriptions it had are shown as plain text'),
  });
  const source = new OverlaySource(privateSource, upstreamSource, { mergeAllowList: new Set(config.mergeAllowList) });
  // The gauge reads the audit at scrape time, after both exist.
  const auditEvents = new AuditMetrics(metrics.registry, logger, (): number => audit?.pendingCount() ?? 0);
  const audit: DownloadAudit | null = config.audit
    ? new DownloadAudit(stores.audit, clock, auditEvents, { retentionMs: config.auditRetention, flushMs: options.auditFlushMs })
    : null;
  const deps: HttpDeps = {
    config,
    clock,
    source,
    privateSource,
    meta,
    blobs,
    space,
    authenticator: new Authenticator(
      meta,
      passwords,
      new LoginLimiter(config.loginFailureLimit, clock),
      clock,
      (reason) => metrics.loginRefusals.inc({ reason }),
      stores.publishers,
    ),
    publisher: new Publisher(stores, upstreamNames, new Set(config.mergeAllowList), clock),
    logger,
    metrics,
    rendered: new RenderedCache(config.memoryCacheSize),
    rootPages: new RootRenderCache(dataLayout(config.data).cache, space, (err) => logger.warn({ err: err.message }, 'rendering the project list failed')),
    stats: reusedStats(() => collectStats(meta, stores.cachedFiles), clock),
    audit,
    clientAddress: clientAddressOf(config.trustedProxies),
  };

  const koa = new Koa();
  const admin = new ProjectAdmin(meta, stores.publishers);
  const issuerDocuments = new IssuerDocuments(config);
  const trustedPublishing = {
    exchange: new TokenExchange(
      { issuers: config.oidcIssuers, audience: config.oidcAudience, tokenTtl: config.oidcTokenTtl },
      stores.publishers,
      new IssuerKeys((issuer) => issuerDocuments.keySet(issuer), clock),
      clock,
    ),
    admin: new PublisherAdmin(meta, stores.publishers, clock),
  };
  const webPages = {
    http: deps,
    admin,
    publishers: trustedPublishing.admin,
    documents: stores.documents,
    upstream: upstreamSource,
    policy: advisorySource && upstreamSource ? combinedHolds(advisorySource, upstreamSource) : null,
    sessionKey: await loadSessionKey(config.data, config.sessionSecret),
    descriptions: new Descriptions(descriptionThread, {
      cacheBytes: Math.floor(config.memoryCacheSize / 8),
      counted: (outcome) => metrics.descriptionRenders.inc({ outcome }),
    }),
    passwords,
  };
  const routes = routeTable(deps, {
    negotiate: memoNegotiator(),
    smallBodies: smallBodyCache(Math.max(1, Math.floor(config.memoryCacheSize / 4))),
    backends: stores.backends,
    admin,
    trustedPublishing,
    pages: (router) => registerWebPages(router, webPages),
  });
  const record = requestRecorder(logger, metrics);
  // Made once nothing can fail any more: close() is what stops it.
  const eventLoopDelay = new EventLoopDelay(metrics.registry);

  const responseFailed = responseFailureLog(logger);
  koa.on('error', responseFailed);
  koa.use(requestLog(record));
  koa.use(errorMiddleware(logger, storageReporter));
  // Before anything reads credentials or a body: a browser's request from another site changes nothing.
  koa.use(crossSiteGuard(config));
  // Every route, web pages and index API: each group checks read credentials its own way (route-table.ts).
  koa.use(routes.router.routes());
  // What no route answers (a 404, a 405, OPTIONS) needs credentials too when reads do.
  if (config.readAuth) koa.use(readAuthMiddleware(deps.authenticator));
  koa.use(routes.router.allowedMethods());

  const entry = oneEntry({
    routes,
    koa: koa.callback(),
    record,
    logger,
    storageReporter,
    readers: config.readAuth ? deps.authenticator : null,
    failed: responseFailed,
  });
  // A duplicate or malformed Host is refused before any route sees the request.
  const server = new HttpServer(hostGate(entry, record), logger);
  let closing: Promise<void> | null = null;
  const shutdown = async (graceMs: number) => {
    await server.close(graceMs, Promise.all(chains.map((c) => c.cache.files.drain())));
    await audit?.close();
    await Promise.all(clients.map((c) => c.close()));
    await issuerDocuments.close();
    eventLoopDelay.close();
    await passwords.close();
    await descriptionThread.close();
    await stores.close();
  };
  return {
    config,
    logger,
    storage: stores,
    meta,
    blobs,
    metrics,
    audit,
    koa,
    reloadPolicy: (rules) => policy.update(rules),
    async listen() {
      const url = await server.listen(config.port, config.host);
      await warmUp(url, deps);
      return url;
    },
    close(graceMs = config.shutdownGrace) {
      closing ??= shutdown(graceMs);
      return closing;
    },
  };
}
